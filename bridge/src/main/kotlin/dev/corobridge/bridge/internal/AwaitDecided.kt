package dev.corobridge.bridge.internal

import dev.corobridge.bridge.Awaitable
import dev.corobridge.bridge.Outcome
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.Job
import java.util.concurrent.CancellationException
import kotlin.coroutines.coroutineContext
import kotlin.coroutines.resumeWithException
import kotlin.coroutines.suspendCoroutine

/**
 * Suspends until this operation completes and returns its value, letting **the operation decide
 * what a cancellation of the caller means** (the Kotlin face of the channel and the condition).
 *
 * Cancelling the calling coroutine asks the operation to cancel ([Awaitable.cancel]); the
 * coroutine then resumes with whatever the operation ends with. If it was withdrawn, that is a
 * `CancellationException`; if it had already matched — a receive that took an element, a send that
 * delivered one, a condition wait that was signalled — the coroutine *returns the result* and the
 * cancellation shows at its next suspension point. Nothing is lost between the two.
 *
 * Plain `suspendCancellableCoroutine` cannot do this: its cancellation resumes the caller at once,
 * so a result arriving in that instant would be dropped. Here the wait itself is not cancellable;
 * a handler on the caller's [Job] forwards the cancellation. The coroutine resumes through its own
 * dispatcher (a waiter on the pump resumes on the pump).
 */
@OptIn(InternalCoroutinesApi::class)
internal suspend fun <T> Awaitable<T>.awaitDecided(): T {
    outcomeOrNull()?.let { return it.valueOrThrow() }
    val job = coroutineContext[Job]
    return suspendCoroutine { cont ->
        // Registered first: a caller cancelled before it waits still cancels the operation.
        val onCancel = job?.invokeOnCompletion(onCancelling = true, invokeImmediately = true) { cause ->
            cancelWith(cause as? CancellationException ?: CancellationException("the waiting coroutine was cancelled"))
        }
        onComplete { outcome ->
            onCancel?.dispose()
            when (outcome) {
                is Outcome.Success -> cont.resumeWith(Result.success(outcome.value()))
                else -> cont.resumeWithException(outcome.errorOrNull())
            }
        }
    }
}

/** The value of a success, or the error of a failure or cancellation thrown. */
internal fun <T> Outcome<T>.valueOrThrow(): T = when (this) {
    is Outcome.Success -> value()
    else -> throw errorOrNull()
}


/** Cancels with [cause] where the awaitable takes one (corobridge's own: promises, tasks, waits), else plainly. */
internal fun Awaitable<*>.cancelWith(cause: CancellationException): Boolean = OutcomeCell.cancel(this, cause)
