package dev.corobridge.bridge

import dev.corobridge.bridge.internal.JobFailure
import kotlinx.coroutines.Job
import kotlin.coroutines.CoroutineContext

/**
 * The thread context of a coroutine's start or resume could not be restored ([failure] thrown by a
 * thread-context element's restore, which has already put the thread's own values back): the
 * coroutine fails with [failure] as if its code had thrown it at that point ([JobFailure]). A start
 * or a cancellable resume — the usual kind — delivers it at once instead of running the code; any
 * other resume runs on, without the context, to its next suspension point, which throws. When the
 * coroutine's job cannot fail (`withContext(NonCancellable)`, no job), [task] is decided with
 * [failure] instead, or, without a task, [failure] is reported to `Tasks.uncaughtFailureHandler()`.
 */
internal fun failResume(context: CoroutineContext, failure: Throwable, task: Task<*>?) {
    if (JobFailure.fail(context[Job], failure)) return
    if (task == null || !task.settle(Outcome.ofError(failure))) Tasks.reportUncaught(failure)
}
