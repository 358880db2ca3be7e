package dev.corobridge.bridge

import dev.corobridge.context.CapturedContext
import dev.corobridge.context.RestoredContext
import kotlinx.coroutines.ThreadContextElement
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext

/**
 * What a coroutine-backed [Task] (or a coroutine recording into a [HopTrace], [recordingHops]) does
 * each time its coroutine starts or resumes on a thread: a
 * [ThreadContextElement] in the task's coroutine context, so kotlinx calls [updateThreadContext] on
 * the thread that runs the coroutine at each start and resume, and [restoreThreadContext] when it
 * suspends or ends — also for every coroutine that inherits the element (`withContext` blocks,
 * `async`/`launch` children), which therefore belong to the same task. One element does all three
 * jobs, because kotlinx allocates per resume when a context holds several thread-context elements:
 * - **hops**: records the resume as a step of the task's [trace] (when tracing is on) and as an event
 *   of its observation (when tasks are observed, `TaskObservations`);
 * - **context**: restores [captured] — the MDC and registered thread-locals of the thread that
 *   started the task — and puts the thread's own values back when the coroutine leaves the thread
 *   (`ContextPropagation`; the same as a `PropagatedContext` element).
 *
 * **A restore that throws.** kotlinx calls [updateThreadContext] outside the coroutine's own
 * exception handling and cannot recover from an exception there (the coroutine never resumes, and
 * the other thread-context elements already updated for that resume are never restored). So this
 * element never throws: when the restore throws (it has already put the thread's own values back),
 * the coroutine fails with that exception at this resume, as if its code had thrown it there
 * ([failResume]): a start or a cancellable resume (the usual kind) delivers it at once, without
 * running the code; the task fails with it, or the `withContext` call of the block rethrows it.
 * A failure while putting the thread's own values back ([restoreThreadContext]) is reported to
 * `Tasks.uncaughtFailureHandler()`: it does not change the outcome.
 *
 * **What is a step.** A resume is recorded as a [Hop] when it runs on another thread, another
 * dispatcher or under another [HopNote] than the last recorded step; a resume on the same thread in
 * the same place records nothing (kotlinx calls [updateThreadContext] on every resume, including
 * a `yield()` back onto the same single thread). The hop's context is the dispatcher's readable
 * name ([Task.contextName]), its note the innermost [HopNote], else [defaultNote] (the task's name).
 *
 * **Cost per resume.** When nothing changed: one volatile read, `Thread.currentThread()` and two
 * identity comparisons (the thread, and the coroutine context object, which stays the same object
 * for one coroutine), plus the context's restore when there is one to carry. Only another thread or
 * context object (a `withContext` block, a child's first resume) looks up the dispatcher and the
 * note and allocates a new step marker; only a real hop also records.
 *
 * **Thread-safety.** Children of the task's coroutine may resume concurrently on several threads
 * and share this element: each resume compares against the last step and replaces it without a
 * lock, so two concurrent resumes may both be recorded (each is a real hop of some coroutine of the
 * task); nothing is lost or corrupted, since [HopTrace] is thread-safe. Each resume's restored
 * context is its own state, put back on the same thread.
 */
internal class TaskThreadContext(
    private val trace: HopTrace?,
    private val defaultNote: String,
    private val task: Task<*>?,
    private val captured: CapturedContext?,
) : ThreadContextElement<RestoredContext?> {

    companion object Key : CoroutineContext.Key<TaskThreadContext>

    override val key: CoroutineContext.Key<*> get() = Key

    /** Whether hops are recorded or observed at all (else only the context is carried). */
    private val records = trace != null || task?.isObservedWork() == true

    /** Where the last recorded step ran; immutable, replaced at each hop. */
    private class Step(
        val thread: Thread,
        val context: CoroutineContext,
        val dispatcher: CoroutineContext.Element?,
        val note: HopNote?,
    )

    @Volatile
    private var last: Step? = null

    override fun updateThreadContext(context: CoroutineContext): RestoredContext? {
        if (records) record(context)
        val c = captured ?: return null
        return try {
            c.restore()
        } catch (e: Throwable) {
            failResume(context, e, task) // the restore has put the thread's own values back
            null
        }
    }

    override fun restoreThreadContext(context: CoroutineContext, oldState: RestoredContext?) {
        if (oldState == null) return
        try {
            oldState.close() // puts back every value, whatever one accessor throws
        } catch (e: Throwable) {
            Tasks.reportUncaught(e) // thrown here, kotlinx would skip the other elements' restore
        }
    }

    private fun record(context: CoroutineContext) {
        val thread = Thread.currentThread()
        val previous = last
        if (previous != null && previous.thread === thread && previous.context === context) {
            return // the usual resume: same coroutine, same thread
        }
        val dispatcher = context[ContinuationInterceptor]
        val note = context[HopNote]
        last = Step(thread, context, dispatcher, note)
        if (previous != null && previous.thread === thread && previous.dispatcher === dispatcher && previous.note === note) {
            return // another coroutine of the task (a child, a withContext block) in the same place
        }
        val contextName = Task.contextName(dispatcher)
        val label = note?.note ?: defaultNote
        trace?.note(contextName, label)
        task?.observeHop(contextName, label) // an event of the task's observation, if it has one
    }

    override fun toString() = "TaskThreadContext($defaultNote)"
}
