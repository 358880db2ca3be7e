@file:JvmName("Awaitables")

package dev.corobridge.bridge

import dev.corobridge.bridge.internal.ContextNames

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.ExecutorCoroutineDispatcher
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.EmptyCoroutineContext
import java.util.concurrent.CompletionException
import java.util.function.Consumer

/**
 * Suspends until this awaitable completes and returns its value, or throws its failure or its
 * cancellation. A failure is rethrown as this awaiter's own copy of the original exception (same
 * class, message and stack; the original as its cause) with the hop trace as a suppressed
 * [HopTraceException]; the original is never changed, so every awaiter sees only its own trace.
 * With kotlinx's stack-trace recovery on (`-ea` or its debug mode) kotlinx rethrows a copy of that
 * copy, recovered with the awaiter's frames, whose cause is the copy with the trace. An
 * exception that cannot be copied faithfully (state of its own, no usable public constructor) is
 * rethrown as it is, without the trace. A failure that is Java's `CompletionException` wrapper (a
 * body that joined another task) is rethrown as its cause, as kotlinx's `CompletableFuture.await()`
 * does. The coroutine resumes on its own dispatcher: an awaiter
 * on the pump resumes on the pump, whichever thread completed the awaitable.
 *
 * Cancelling the awaiting coroutine only stops this wait and withdraws its callback; the awaitable
 * itself is left alone, as with `Deferred.await()`. (Java blocks with [Awaitable.join] instead.)
 */
public suspend fun <T> Awaitable<T>.await(): T {
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
 *
 * The copy leaves out the artificial `_COROUTINE` boundary frames that kotlinx's stack-trace
 * recovery (on with `-ea` or debug mode) puts into the failure of a coroutine that crossed
 * `withContext`: with them, the copy (same class as its cause) would look like one of kotlinx's own
 * recovered copies, and the recovery of this `await` would rebuild the exception from its cause and
 * drop the hop trace. Without them kotlinx copies the awaiter's copy, which stays in the cause chain.
 */
private fun withHops(error: Throwable, source: Awaitable<*>): Throwable {
    // A Java body that joined another task failed with join()'s wrapper: Kotlin has no checked
    // exceptions, so the awaiter gets the failure itself, as kotlinx's await of a CompletableFuture does.
    val cause = (error as? CompletionException)?.cause
    val mine = Waiting.forAwaiter(cause ?: error, source)
    if (mine !== error) {
        val frames = mine.stackTrace
        if (frames.any { it.className.startsWith(ARTIFICIAL_FRAME_PREFIX) }) {
            mine.stackTrace = frames.filterNot { it.className.startsWith(ARTIFICIAL_FRAME_PREFIX) }.toTypedArray()
        }
    }
    return mine
}

/** The class-name prefix of the boundary frames kotlinx's stack-trace recovery inserts. */
private const val ARTIFICIAL_FRAME_PREFIX = "_COROUTINE."

/**
 * Starts [block] as a coroutine in this scope and hands it to Java callers as a [Task]: the task
 * completes with the coroutine, cancelling the task cancels the coroutine and vice versa, and the
 * coroutine is a child of this scope (structured concurrency).
 *
 * The task is named (in its `toString()` and hop traces) after the [CoroutineName] of the
 * coroutine's context (this scope's plus [context]) if it has one, else after its dispatcher
 * (`MessagePump[ui]`, `Dispatchers.Default`), else "task".
 *
 * **Hops are recorded** (while [Tasks.isTracing]): every start or resume of the coroutine — and
 * of the `withContext` blocks and children inside it — on another thread or context than the last
 * step is a [Hop] of [Task.getTrace], named after the context (`ui`, `Dispatchers.Default`) and
 * labelled with the innermost [HopNote], else the task's name. A failure awaited with `await()` or
 * `join()` carries them in a [HopTraceException], as a Java `thenOn` chain's does.
 *
 * [start] is `async`'s. A [CoroutineStart.LAZY] task starts, as a lazy `async` does on `await()`,
 * when something first waits for it or registers on it: `await()`, `join()`, `onComplete`, a stage
 * chained to it (`thenOn`, ...), a conversion (`asDeferred()`, `toCompletableFuture()`). Looking at it
 * (`isDone`, `outcomeOrNull()`) does not start it; cancelling it before then means it never runs.
 */
@JvmOverloads
public fun <T> CoroutineScope.task(
    context: CoroutineContext = EmptyCoroutineContext,
    start: CoroutineStart = CoroutineStart.DEFAULT,
    block: suspend CoroutineScope.() -> T,
): Task<T> = tracedTask(context, start, taskName(coroutineContext + context), block)

/** A task's name from its coroutine's context: its [CoroutineName], else its dispatcher, else "task". */
internal fun taskName(context: CoroutineContext): String =
    context[CoroutineName]?.name
        ?: context[ContinuationInterceptor]?.let(::dispatcherName)
        ?: "task"

/**
 * A dispatcher's name for the tasks that run on it: its `toString()` (`MessagePump[ui]`,
 * `Dispatchers.Default`), but the executor's stable name for one made of an executor, whose
 * `toString()` is the executor's (a `ThreadPoolExecutor`'s carries its identity and live counters:
 * a new name per task in traces, and in the span names of observed tasks).
 */
internal fun dispatcherName(dispatcher: CoroutineContext.Element): String =
    if (dispatcher is ExecutorCoroutineDispatcher) ContextNames.contextName(dispatcher) else dispatcher.toString()

/** This Deferred as a [Task]; cancellation flows both ways. */
public fun <T> Deferred<T>.asTask(): Task<T> = taskOf(this, "Deferred")

/**
 * This awaitable as a kotlinx [Deferred] that completes with it; cancelling the Deferred cancels
 * the awaitable and vice versa.
 */
public fun <T> Awaitable<T>.asDeferred(): Deferred<T> {
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
