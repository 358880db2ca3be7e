package dev.corobridge.context

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
 * corobridge's coroutine-backed tasks (`scope.task {}`, `Task.fromSuspend`, `TaskScope.fork`) add
 * one by themselves. Spring 7's `PropagationContextElement` does the same for the registry's
 * thread-locals; the two can be in one context (the innermost wins, both restore what they found).
 *
 * Immutable; safe to share between coroutines (each resume restores into its own scope).
 *
 * @property captured what is restored; by default the current thread's context
 */
class PropagatedContext @JvmOverloads constructor(
    val captured: CapturedContext = ContextPropagation.capture(),
) : ThreadContextElement<RestoredContext> {

    /** The key of [PropagatedContext] in a coroutine context. */
    companion object Key : CoroutineContext.Key<PropagatedContext>

    override val key: CoroutineContext.Key<*> get() = Key

    override fun updateThreadContext(context: CoroutineContext): RestoredContext = captured.restore()

    override fun restoreThreadContext(context: CoroutineContext, oldState: RestoredContext) = oldState.close()

    override fun toString() = "PropagatedContext($captured)"
}
