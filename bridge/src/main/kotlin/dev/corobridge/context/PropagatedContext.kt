package dev.corobridge.context

import dev.corobridge.bridge.failResume
import dev.corobridge.bridge.internal.UncaughtFailures
import kotlinx.coroutines.ThreadContextElement
import kotlin.coroutines.CoroutineContext

/**
 * Carries a [CapturedContext] — SLF4J's MDC and the thread-locals of Micrometer's `ContextRegistry`
 * — through a coroutine: a [ThreadContextElement] that restores the captured values on the thread
 * each time the coroutine starts or resumes, and puts back the thread's own values when it
 * suspends or ends. Child coroutines and `withContext` blocks inherit it.
 *
 * ```
 * MDC.put("request", id)
 * scope.launch(PropagatedContext()) {           // captures here
 *     withContext(Dispatchers.IO) { log.info("still has request=$id") }
 * }
 * ```
 * corobridge's coroutine-backed tasks (`scope.task {}`, `Task.startSuspend`, `TaskScope.fork`) add
 * one by themselves. Spring 7's `PropagationContextElement` does the same for the registry's
 * thread-locals; the two can be in one context (the innermost wins, both restore what they found).
 *
 * **A restore that throws** (a registered accessor's `setValue`, an observation handler it calls)
 * never escapes: kotlinx could not recover from it (the coroutine would never resume, and the
 * other thread-context elements of that resume would not be restored). The restore has put the
 * thread's own values back; the coroutine then fails with that exception at that resume, as if its
 * code had thrown it there — a start or a cancellable resume delivers it at once, without running
 * the code. A failure while the thread's own values are put back is reported to
 * `Tasks.uncaughtFailureHandler()`; every other value is still put back.
 *
 * Immutable; safe to share between coroutines (each resume restores into its own scope).
 *
 * @property captured what is restored; by default the current thread's context
 */
public class PropagatedContext @JvmOverloads constructor(
    public val captured: CapturedContext = ContextPropagation.capture(),
) : ThreadContextElement<RestoredContext> {

    /** The key of [PropagatedContext] in a coroutine context. */
    public companion object Key : CoroutineContext.Key<PropagatedContext>

    override val key: CoroutineContext.Key<*> get() = Key

    override fun updateThreadContext(context: CoroutineContext): RestoredContext =
        try {
            captured.enterStep() // the scope kotlinx closes once per resume; shared on a clean thread
        } catch (e: Throwable) {
            failResume(context, e, null) // the restore has put the thread's own values back
            RestoredContext.NOTHING // nothing to put back
        }

    override fun restoreThreadContext(context: CoroutineContext, oldState: RestoredContext) {
        try {
            oldState.close() // puts back every value, whatever one accessor throws
        } catch (e: Throwable) {
            UncaughtFailures.report(null, e) // thrown here, kotlinx would skip the other elements' restore
        }
    }

    override fun toString(): String = "PropagatedContext($captured)"
}
