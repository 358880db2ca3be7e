package dev.corobridge.bridge.internal

import kotlinx.coroutines.CompletableJob
import kotlinx.coroutines.Job
import java.util.concurrent.CancellationException
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.intrinsics.COROUTINE_SUSPENDED

/**
 * One call of a kotlinx suspending function (`Mutex.lock`, `Semaphore.acquire`, `Channel.send` /
 * `receive`) made on behalf of a Java caller; its outcome is this [Promise], which the Java face
 * returns as an `Awaitable`.
 *
 * ## Implementation overview
 * The kotlinx function is invoked directly with this object as its continuation (no coroutine is
 * started). The continuation's context holds only a private [Job] and **no dispatcher**:
 *  - *No dispatcher.* kotlinx resumes this continuation directly on the thread that completes the
 *    operation (the unlocking, releasing, sending or receiving party). That resumption is never
 *    subject to prompt cancellation, so [onResult] learns the truth: the lock is held, the permit
 *    taken, the element received or delivered — or the operation was withdrawn.
 *  - *Private job.* Cancelling it ([withdraw]) withdraws the waiting operation from the kotlinx
 *    primitive (whoever would have matched it skips it); kotlinx then resumes this continuation
 *    with a `CancellationException`, synchronously, inside [Job.cancel]. If the operation had
 *    already matched, the cancel has no effect and the result arrives as usual.
 *
 * What a Java `cancel()` means is the subclass's choice: [PermitCall] decides at once and gives a
 * permit granted at the same instant back; [ChannelCall] lets the operation decide, because an
 * element that changed hands cannot be given back.
 *
 * Callbacks registered on the promise run on the completing thread (see `Awaitable.onComplete`).
 */
internal abstract class KotlinxCall<R, T> : OutcomeCell<T>(), Continuation<R> {

    private val job: CompletableJob = Job()

    final override val context: CoroutineContext get() = job

    /** What the kotlinx function returned or threw: decide this call's outcome. */
    protected abstract fun onResult(value: R?, error: Throwable?)

    final override fun resumeWith(result: Result<R>) {
        val error = result.exceptionOrNull()
        @Suppress("UNCHECKED_CAST")
        onResult(if (error == null) result.getOrNull() else null, error)
    }

    /**
     * Finishes the start of a call whose kotlinx function returned [returned] (its value, or
     * [COROUTINE_SUSPENDED]).
     */
    protected fun started(returned: Any?) {
        if (returned !== COROUTINE_SUSPENDED) {
            @Suppress("UNCHECKED_CAST")
            onResult(returned as R, null)
        }
    }

    /** Withdraws the waiting operation from the kotlinx primitive (no effect once it has matched). */
    protected fun withdraw(cause: CancellationException) {
        job.cancel(cause)
    }
}

/** `[outcome]` or `[pending]`: how the calls' `toString()` show their state. */
internal fun dev.corobridge.bridge.Awaitable<*>.stateSuffix(): String =
    outcomeOrNull()?.let { "[$it]" } ?: "[pending]"
