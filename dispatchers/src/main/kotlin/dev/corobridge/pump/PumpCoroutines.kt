@file:JvmName("PumpCoroutines")

package dev.corobridge.pump

import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.job

// The coroutine side of MessagePump's lifecycle, kept in Kotlin so the Java class needs no
// Kotlin-only types in its signatures.

internal fun newPumpScope(dispatcher: PumpDispatcher, name: String): CoroutineScope =
    CoroutineScope(SupervisorJob() + dispatcher + CoroutineName(name))

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
