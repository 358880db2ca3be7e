package dev.corobridge.bridge

import kotlinx.coroutines.ThreadContextElement
import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext

/**
 * Records the hops of a coroutine-backed [Task] into its [trace] (when tracing is on) and as events
 * of its observation (when tasks are observed, `TaskObservations`): a [ThreadContextElement] in the
 * task's coroutine context, so kotlinx calls [updateThreadContext] on the thread that runs the
 * coroutine each time it starts or resumes — and for every coroutine that inherits the element
 * (`withContext` blocks, `async`/`launch` children), which therefore record into the same trace.
 *
 * **What is a step.** A resume is recorded as a [Hop] when it runs on another thread, another
 * dispatcher or under another [HopNote] than the last recorded step; a resume on the same thread in
 * the same place records nothing (kotlinx calls [updateThreadContext] on every resume, including
 * a `yield()` back onto the same single thread). The hop's context is the dispatcher's readable
 * name ([Task.contextName]), its note the innermost [HopNote], else [defaultNote] (the task's name).
 *
 * **Cost per resume.** When nothing changed: one volatile read, `Thread.currentThread()` and two
 * identity comparisons (the thread, and the coroutine context object, which stays the same object
 * for one coroutine). Only another thread or context object (a `withContext` block, a child's first
 * resume) looks up the dispatcher and the note and allocates a new step marker; only a real hop
 * also records (a [Hop] allocated unless it is the trace's first).
 *
 * **Thread-safety.** Children of the task's coroutine may resume concurrently on several threads
 * and share this recorder: each resume compares against the last step and replaces it without a
 * lock, so two concurrent resumes may both be recorded (each is a real hop of some coroutine of the
 * task); nothing is lost or corrupted, since [HopTrace] is thread-safe. [restoreThreadContext] does
 * nothing: a recorder changes no thread state.
 */
internal class HopRecorder(
    private val trace: HopTrace?,
    private val defaultNote: String,
    private val task: Task<*>,
) : ThreadContextElement<Unit> {

    companion object Key : CoroutineContext.Key<HopRecorder>

    override val key: CoroutineContext.Key<*> get() = Key

    /** Where the last recorded step ran; immutable, replaced at each hop. */
    private class Step(
        val thread: Thread,
        val context: CoroutineContext,
        val dispatcher: CoroutineContext.Element?,
        val note: HopNote?,
    )

    @Volatile
    private var last: Step? = null

    override fun updateThreadContext(context: CoroutineContext) {
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
        task.observeHop(contextName, label) // an event of the task's observation, if it has one
    }

    override fun restoreThreadContext(context: CoroutineContext, oldState: Unit) {
        // nothing to restore: recording changes no thread state
    }

    override fun toString() = "HopRecorder($defaultNote)"
}
