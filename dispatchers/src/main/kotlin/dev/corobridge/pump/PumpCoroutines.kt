@file:JvmName("PumpCoroutines")

package dev.corobridge.pump

import kotlinx.coroutines.CoroutineExceptionHandler
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.job
import java.util.concurrent.Executor
import java.util.function.Consumer
import kotlin.coroutines.Continuation

// The coroutine side of MessagePump's lifecycle, kept in Kotlin so the Java class needs no
// Kotlin-only types in its signatures.

/**
 * The pump's scope: a supervisor on the pump whose children's failures go to [onFailure] (the
 * pump's uncaught-exception handler), unless a child has a `CoroutineExceptionHandler` of its own.
 */
internal fun newPumpScope(dispatcher: PumpDispatcher, name: String, onFailure: Consumer<Throwable>): CoroutineScope =
    CoroutineScope(SupervisorJob() + dispatcher + CoroutineName(name) + CoroutineExceptionHandler { _, e -> onFailure.accept(e) })

/** Phase 1 of shutdown: cancel every child; [onDone] runs when the last one has finished. */
internal fun cancelScope(scope: CoroutineScope, cause: PumpShutdownException, onDone: Runnable) {
    val job = scope.coroutineContext.job
    job.invokeOnCompletion { onDone.run() }
    job.cancel(cause)
}

internal fun isScopeDone(scope: CoroutineScope): Boolean = scope.coroutineContext.job.isCompleted

internal fun liveChildren(scope: CoroutineScope): Int =
    scope.coroutineContext.job.children.count { !it.isCompleted }

internal fun describeLiveChildren(scope: CoroutineScope): List<String> =
    scope.coroutineContext.job.children.filter { !it.isCompleted }.map { it.toString() }.toList()

/**
 * A forced termination found [resumption] (a dispatched coroutine continuation) still queued: as
 * for a dispatch refused after termination, cancel its coroutine with [cause] and run it on
 * [fallback] so that it can finish instead of staying suspended forever.
 */
internal fun resumeOnFallback(resumption: Runnable, cause: PumpShutdownException, fallback: Executor) {
    (resumption as Continuation<*>).context.cancel(cause)
    fallback.execute(resumption)
}
