@file:JvmName("TaskScopes")

package dev.corobridge.bridge

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CompletableJob
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.job
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import java.util.concurrent.Callable

// Coroutine plumbing behind TaskScope (Java).

/**
 * A scope's job: a plain `Job` (a failing child cancels it and its other children), under a parent
 * of its own that takes charge of its failures, as `coroutineScope`'s coroutine does for its
 * children. A root `Job()` does not: a Kotlin child failing in it (`scope.launch { throw … }`)
 * would also go to a `CoroutineExceptionHandler` or the thread's uncaught exception handler,
 * besides `joinAll()`, which rethrows it to the scope's owner.
 */
internal fun newScopeJob(): CompletableJob = Job(CompletableDeferred<Unit>())

internal fun newScope(job: Job, name: String): CoroutineScope = CoroutineScope(job + CoroutineName(name))

internal fun <T> fork(scope: CoroutineScope, dispatcher: CoroutineDispatcher, body: Callable<out T>): Task<T> {
    val job = scope.coroutineContext.job
    return scope.tracedTask(dispatcher, CoroutineStart.DEFAULT, dispatcherName(dispatcher)) {
        val outer = runningForkOf.get()
        runningForkOf.set(job)
        try {
            body.call()
        } finally {
            if (outer == null) runningForkOf.remove() else runningForkOf.set(outer)
        }
    }
}

/** The scope job whose Java fork body the current thread runs (a body runs on one thread, start to end). */
private val runningForkOf = ThreadLocal<Job?>()

/** Whether the current thread runs a fork body of the scope with [job]: a wait for the scope there would wait for itself. */
internal fun isInForkOf(job: Job): Boolean = runningForkOf.get() === job

internal fun <T> forkSuspend(scope: CoroutineScope, dispatcher: CoroutineDispatcher, call: SuspendCall<T>): Task<T> =
    scope.tracedTask(dispatcher, CoroutineStart.DEFAULT, dispatcherName(dispatcher)) { call.call() }

/**
 * Completes when every child forked so far has finished: with `null` if none failed, else with the
 * first failure (which has already cancelled the siblings).
 */
@OptIn(DelicateCoroutinesApi::class)
internal fun whenChildrenDone(job: Job): Promise<Throwable?> {
    val done = Promise<Throwable?>()
    GlobalScope.launch(Dispatchers.Unconfined) {
        job.children.toList().joinAll()
        done.complete(firstFailure(job))
    }
    return done
}

/**
 * Cancels [job] with [cause]; `true` iff this call decided its cancellation: the job was not
 * cancelled yet and [cause] became the root cause (not a concurrent cancel, not a child's failure).
 */
@OptIn(kotlinx.coroutines.InternalCoroutinesApi::class)
internal fun cancelJob(job: Job, cause: java.util.concurrent.CancellationException): Boolean {
    if (job.isCancelled || job.isCompleted) return false
    job.cancel(cause)
    return job.getCancellationException() === cause
}

/** The failure that cancelled [job], or `null` if it was not cancelled by a failure. */
@OptIn(kotlinx.coroutines.InternalCoroutinesApi::class)
internal fun firstFailure(job: Job): Throwable? {
    if (!job.isCancelled) return null
    val ce = job.getCancellationException()
    val cause = ce.cause
    return if (cause != null && cause !is java.util.concurrent.CancellationException) cause else null
}
