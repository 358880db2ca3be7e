@file:JvmName("TaskCoroutines")

package dev.corobridge.bridge

import dev.corobridge.bridge.internal.ContextNames
import dev.corobridge.bridge.internal.StepObservation

import dev.corobridge.bridge.internal.StepObserver
import dev.corobridge.bridge.internal.StepObservers
import dev.corobridge.context.CapturedContext
import dev.corobridge.context.internal.ClearedContext
import dev.corobridge.context.internal.ContextSteps
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.async
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext

// Coroutine plumbing behind Task's Java factories. Internal: the public Kotlin API is in Awaitables.

/** A coroutine on [dispatcher] that calls a Kotlin suspend function handed over from Java. */
@OptIn(DelicateCoroutinesApi::class)
internal fun <T> startSuspend(dispatcher: CoroutineDispatcher, call: SuspendCall<T>): Task<T> =
    // Kotlin sees the Java method `call(Continuation<T>)` as the suspend function it stands for.
    GlobalScope.tracedTask(dispatcher, CoroutineStart.DEFAULT, dispatcherName(dispatcher)) { call.call() }

/**
 * Starts [block] with `async` in this scope as a [Task] named [name] whose hops are recorded and
 * observed and whose context travels: the coroutine's context gets a [TaskThreadContext] for the
 * task (one inherited from an enclosing task is replaced, so each task keeps its own trace) when
 * tracing is on, tasks are observed, or there is context to carry (`ContextPropagation`).
 */
internal fun <T> CoroutineScope.tracedTask(
    context: CoroutineContext,
    start: CoroutineStart,
    name: String,
    block: suspend CoroutineScope.() -> T,
): Task<T> {
    val trace = Task.newTrace()
    val step = beginObservation(name, ContextNames.contextName((coroutineContext + context)[ContinuationInterceptor]))
    val captured = if (step == null) Task.capturedHere() else capturedWithin(step)
    val task = Task<T>(name, trace, captured)
    if (step != null) task.adoptObservation(step)
    if (trace == null && step == null && captured == null) return link(async(context, start, block), task, recordsHops = true)
    val full = context + TaskThreadContext(trace, name, task, captured)
    return link(async(full, start) { recordingItsEnd(block) }, task, recordsHops = true, captured)
}

/**
 * Runs [block], then records where it ended as a step of the task (before the task settles, so
 * awaiters and its failure's [HopTraceException] see it): a `withContext` block that ends before its
 * caller suspends lets the caller go on without a resume, so no resume records that its code runs
 * on its own thread again; when nothing moved, this is the usual resume's check and records nothing.
 * The element is the coroutine's own (the task's, composed with the enclosing [recordingHops]
 * traces when it was started inside such a block), so those traces get the step too.
 */
private suspend fun <T> CoroutineScope.recordingItsEnd(block: suspend CoroutineScope.() -> T): T {
    try {
        return block()
    } finally {
        coroutineContext[TaskThreadContext]?.recordHere(coroutineContext)
    }
}

/**
 * The current thread's context captured with [step]'s observation current, so that every resume
 * of the task restores it. An observer that cannot open its scope is reported and the context is
 * captured without it (an observer's failure never fails the task); if the capture itself throws,
 * the observation ends with that failure before it is rethrown, so it is never left open.
 */
private fun capturedWithin(step: StepObserver.Step): CapturedContext? {
    val scope = try {
        step.open()
    } catch (e: Throwable) {
        Tasks.reportUncaught(e)
        null
    }
    val captured = try {
        Task.capturedHere()
    } catch (e: Throwable) {
        if (scope != null) StepObservation.close(scope)
        try {
            step.end(e, false)
        } catch (ending: Throwable) {
            e.addSuppressed(ending)
        }
        throw e
    }
    if (scope != null) StepObservation.close(scope)
    return captured
}

/** The observation of a coroutine task that begins now, or null when nothing observes (see `TaskObservations`). */
private fun beginObservation(name: String, context: String): StepObserver.Step? {
    val observer = StepObservers.get() ?: return null
    return try {
        observer.begin(name, context, name, null)
    } catch (e: Throwable) {
        Tasks.reportUncaught(e) // an observer's failure never fails the task
        null
    }
}

/** The thread's context cleared until closed, if it runs a step of [captured]; null otherwise (or if clearing failed: reported). */
private fun clearedInStepOf(captured: CapturedContext): ClearedContext? {
    if (!ContextSteps.inStepOf(captured)) return null
    return try {
        ClearedContext.clearHere()
    } catch (e: Throwable) {
        Tasks.reportUncaught(e) // the thread's values are as they were; settling goes on
        null
    }
}

/** Settles [task] with the outcome of [deferred], which has completed ([cause]: its failure or cancellation). */
private fun <T> settleFrom(deferred: Deferred<T>, task: Task<T>, cause: Throwable?, captured: CapturedContext?) {
    @Suppress("OPT_IN_USAGE")
    val outcome: Outcome<T> = if (cause == null) Outcome.Success(deferred.getCompleted()) else Outcome.ofError(cause)
    if (captured == null) {
        task.settle(outcome)
    } else {
        // Cleared only while callbacks run: a task nobody awaits settles in place (the pump's
        // kept context stays one restore then). Closing the clear puts the task's values back,
        // which the coroutine's resume then puts away.
        task.settle(outcome) { clearedInStepOf(captured) }
    }
}

/**
 * The task of a Deferred started elsewhere: it carries the current thread's context for its
 * stages, and its trace (when tracing is on) records where the Deferred completed, since nothing
 * recorded its coroutine's hops.
 */
internal fun <T> taskOf(deferred: Deferred<T>, name: String): Task<T> =
    link(deferred, Task(name, Task.newTrace()), recordsHops = false)

/**
 * Links a Deferred and a Task: completion flows to the task, cancellation both ways. [captured]:
 * the context the coroutine carries, if any. Its completion runs inside the coroutine's last
 * resume, with those values on the thread; what settling resumes there inline (an awaiter on a
 * dispatcher that does not dispatch from its own thread, a callback) is not the task's work, so
 * when the settle detaches callbacks the thread is cleared while they run, as a Java task's step
 * is put back before it is decided.
 */
private fun <T> link(deferred: Deferred<T>, task: Task<T>, recordsHops: Boolean, captured: CapturedContext? = null): Task<T> {
    if (recordsHops) {
        // A look at the task between the coroutine's completion and its handler (its scope may
        // have returned in that moment) settles it from the coroutine. Not for a Deferred started
        // elsewhere: its handler records where it completed first, on the completing thread.
        task.settleWhenLookedAt {
            if (deferred.isCompleted) settleFrom(deferred, task, deferred.getCompletionExceptionOrNull(), captured)
        }
    }
    deferred.invokeOnCompletion { cause ->
        if (!recordsHops) { // before settling, so awaiters see the step
            val dispatcher = (deferred as? CoroutineScope)?.coroutineContext?.get(ContinuationInterceptor)
            task.hop(ContextNames.contextName(dispatcher), "completed")
        }
        settleFrom(deferred, task, cause, captured)
        task.settleWhenLookedAt(null)
    }
    task.setCanceller { cause -> deferred.cancel(cause) } // the coroutine sees the task's cancellation
    if (!deferred.isActive && !deferred.isCompleted) {
        task.startOnFirstWait { deferred.start() } // a lazy coroutine: started by its first waiter, as await() starts it
    }
    return task
}
