@file:JvmName("TaskCoroutines")

package dev.corobridge.bridge

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.async
import kotlin.coroutines.CoroutineContext

// Coroutine plumbing behind Task's Java factories. Internal: the public Kotlin API is in TaskKt.

/** A coroutine on [dispatcher] that calls a Kotlin suspend function handed over from Java. */
@OptIn(DelicateCoroutinesApi::class)
internal fun <T> startSuspend(dispatcher: CoroutineDispatcher, call: SuspendCall<T>): Task<T> =
    // Kotlin sees the Java method `call(Continuation<T>)` as the suspend function it stands for.
    GlobalScope.tracedTask(dispatcher, CoroutineStart.DEFAULT, dispatcher.toString()) { call.call() }

/**
 * Starts [block] with `async` in this scope as a [Task] named [name] whose hops are recorded: when
 * tracing is on, the coroutine's context gets a [HopRecorder] writing to the task's trace (a
 * recorder inherited from an enclosing traced task is replaced, so each task keeps its own trace).
 */
internal fun <T> CoroutineScope.tracedTask(
    context: CoroutineContext,
    start: CoroutineStart,
    name: String,
    block: suspend CoroutineScope.() -> T,
): Task<T> {
    val trace = Task.newTrace()
    val traced = if (trace != null) context + HopRecorder(trace, name) else context
    return taskOf(async(traced, start, block), name, trace)
}

/**
 * Links a Deferred and a Task: completion flows to the task, cancellation both ways. The task keeps
 * [trace] (the one its coroutine records into), or a trace of its own that nothing records into
 * when [trace] is null and tracing is on (a Deferred started elsewhere).
 */
internal fun <T> taskOf(deferred: Deferred<T>, name: String, trace: HopTrace? = Task.newTrace()): Task<T> {
    val task = Task<T>(name, trace)
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
