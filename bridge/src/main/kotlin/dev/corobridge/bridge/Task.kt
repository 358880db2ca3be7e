@file:JvmName("TaskKt")

package dev.corobridge.bridge

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.async
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext
import java.util.function.Consumer

/**
 * Suspends until this awaitable completes and returns its value, or throws its failure or its
 * cancellation. A failure is rethrown as this awaiter's own copy of the original exception (same
 * class, message and stack; the original as its cause) with the hop trace as a suppressed
 * [HopTraceException]; the original is never changed, so every awaiter sees only its own trace. An
 * exception that cannot be copied faithfully (state of its own, no usable public constructor) is
 * rethrown as it is, without the trace. The coroutine resumes on its own dispatcher: an awaiter
 * on the pump resumes on the pump, whichever thread completed the awaitable.
 *
 * Cancelling the awaiting coroutine only stops this wait and withdraws its callback; the awaitable
 * itself is left alone, as with `Deferred.await()`. (Java blocks with [Awaitable.join] instead.)
 */
suspend fun <T> Awaitable<T>.await(): T {
    outcomeOrNull()?.let { return valueOf(it, this) }
    return suspendCancellableCoroutine { cont ->
        val waiter = Waiter(this, cont)
        waiter.registration = onComplete(waiter)
        cont.invokeOnCancellation(waiter)
    }
}

/**
 * One suspended [await]: the completion callback and the cancellation handler in one object (a
 * lambda for each cost a lambda, a `Consumer` wrapper and a second lambda per await).
 */
private class Waiter<T>(
    private val source: Awaitable<T>,
    private val cont: CancellableContinuation<T>,
) : Consumer<Outcome<T>>, (Throwable?) -> Unit {
    /** Set before the cancellation handler is installed, so the handler always sees it. */
    var registration: Registration? = null

    override fun accept(outcome: Outcome<T>) {
        when (outcome) {
            is Outcome.Success -> cont.resumeWith(Result.success(outcome.value()))
            is Outcome.Failure -> cont.resumeWith(Result.failure(withHops(outcome.error(), source)))
            is Outcome.Cancelled -> cont.resumeWith(Result.failure(outcome.cause()))
        }
    }

    /** The awaiting coroutine was cancelled: withdraw the callback, leave the awaitable alone. */
    override fun invoke(cause: Throwable?) {
        registration?.dispose()
    }
}

private fun <T> valueOf(outcome: Outcome<T>, source: Awaitable<T>): T = when (outcome) {
    is Outcome.Success -> outcome.value()
    is Outcome.Cancelled -> throw outcome.cause()
    is Outcome.Failure -> throw withHops(outcome.error(), source)
}

/**
 * The failure as this awaiter receives it (checked ones too: Kotlin has none): a copy with the hop
 * trace attached, or the original, unchanged, if it cannot be copied faithfully.
 */
private fun withHops(error: Throwable, source: Awaitable<*>): Throwable = Waiting.forAwaiter(error, source)

/**
 * Starts [block] as a coroutine in this scope and hands it to Java callers as a [Task]: the task
 * completes with the coroutine, cancelling the task cancels the coroutine and vice versa, and the
 * coroutine is a child of this scope (structured concurrency).
 *
 * The task is named (in its `toString()` and hop traces) after the [CoroutineName] of the
 * coroutine's context (this scope's plus [context]) if it has one, else after its dispatcher
 * (`MessagePump[ui]`, `Dispatchers.Default`), else "task".
 */
@JvmOverloads
fun <T> CoroutineScope.task(
    context: CoroutineContext = EmptyCoroutineContext,
    start: CoroutineStart = CoroutineStart.DEFAULT,
    block: suspend CoroutineScope.() -> T,
): Task<T> = taskOf(async(context, start, block), taskName(coroutineContext + context))

/** A task's name from its coroutine's context: its [CoroutineName], else its dispatcher, else "task". */
internal fun taskName(context: CoroutineContext): String =
    context[CoroutineName]?.name
        ?: context[ContinuationInterceptor]?.toString()
        ?: "task"

/** This Deferred as a [Task]; cancellation flows both ways. */
fun <T> Deferred<T>.asTask(): Task<T> = taskOf(this, "Deferred")

/**
 * This awaitable as a kotlinx [Deferred] that completes with it; cancelling the Deferred cancels
 * the awaitable and vice versa.
 */
fun <T> Awaitable<T>.asDeferred(): Deferred<T> {
    val deferred = CompletableDeferred<T>()
    onComplete { outcome ->
        when (outcome) {
            is Outcome.Success -> deferred.complete(outcome.value())
            is Outcome.Failure -> deferred.completeExceptionally(outcome.error())
            is Outcome.Cancelled -> deferred.cancel(outcome.cause())
        }
    }
    deferred.invokeOnCompletion { cause ->
        if (cause is java.util.concurrent.CancellationException) cancel()
    }
    return deferred
}
