@file:JvmName("TaskCoroutines")

package dev.corobridge.bridge

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.async

// Coroutine plumbing behind Task's Java factories. Internal: the public Kotlin API is in TaskKt.

/** A coroutine on [dispatcher] that calls a Kotlin suspend function handed over from Java. */
@OptIn(DelicateCoroutinesApi::class)
internal fun <T> startSuspend(dispatcher: CoroutineDispatcher, call: SuspendCall<T>): Task<T> {
    // Kotlin sees the Java method `call(Continuation<T>)` as the suspend function it stands for.
    val deferred = GlobalScope.async(dispatcher) { call.call() }
    return taskOf(deferred, dispatcher.toString())
}

/** Links a Deferred and a Task: completion flows to the task, cancellation both ways. */
internal fun <T> taskOf(deferred: Deferred<T>, name: String): Task<T> {
    val task = Task<T>(name)
    deferred.invokeOnCompletion { cause ->
        if (cause == null) {
            @Suppress("UNCHECKED_CAST", "OPT_IN_USAGE")
            task.settle(Outcome.Success(deferred.getCompleted()))
        } else {
            task.settle(Outcome.ofError(cause))
        }
    }
    task.setCanceller { deferred.cancel() }
    return task
}
