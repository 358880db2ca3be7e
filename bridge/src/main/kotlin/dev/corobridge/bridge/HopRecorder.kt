package dev.corobridge.bridge

import dev.corobridge.bridge.internal.ContextNames

import kotlin.coroutines.ContinuationInterceptor
import kotlin.coroutines.CoroutineContext

/**
 * Records the starts and resumes of coroutines as the hops of one [trace] — and, for a task's own
 * recorder, as events of the task's observation — for a [TaskThreadContext]: a resume is a hop when
 * it runs on another thread, another dispatcher or under another [HopNote] than the last recorded
 * step, named after the dispatcher ([ContextNames.contextName]) and labelled with the innermost [HopNote],
 * else [defaultNote]. Every element that records into the same trace shares its recorder, so the
 * last step is the trace's, wherever the coroutine that made it runs.
 *
 * **Thread-safety.** Resumes of several coroutines may record concurrently: each compares against
 * the last step and replaces it without a lock, so two concurrent resumes may both be recorded (each
 * is a real hop); [HopTrace] is thread-safe.
 */
internal class HopRecorder private constructor(
    val trace: HopTrace?,
    val defaultNote: String,
    private val task: Task<*>?,
) {
    /** Where the last recorded step ran; immutable, replaced at each hop. */
    private class Step(
        val thread: Thread,
        val context: CoroutineContext,
        val dispatcher: CoroutineContext.Element?,
        val note: HopNote?,
    )

    @Volatile
    private var last: Step? = null

    /** Records this resume of a coroutine with [context] on the current thread, if it is a hop. */
    fun record(context: CoroutineContext) {
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
        val contextName = ContextNames.contextName(dispatcher)
        val label = note?.note ?: defaultNote
        trace?.note(contextName, label)
        task?.observeHop(contextName, label) // an event of the task's observation, if it has one
    }

    companion object {
        /** A recorder into [trace] and [task]'s observation, or null when there is nothing to record into. */
        fun of(trace: HopTrace?, defaultNote: String, task: Task<*>?): HopRecorder? =
            if (trace != null || task?.isObservedWork() == true) HopRecorder(trace, defaultNote, task) else null
    }
}
