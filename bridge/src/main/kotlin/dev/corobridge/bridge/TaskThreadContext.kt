package dev.corobridge.bridge

import dev.corobridge.bridge.internal.ContextNames

import dev.corobridge.context.CapturedContext
import dev.corobridge.context.internal.ContextSteps
import dev.corobridge.context.RestoredContext
import kotlinx.coroutines.CopyableThreadContextElement
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlin.coroutines.CoroutineContext

/**
 * What a coroutine-backed [Task] (or a coroutine recording into a [HopTrace], [recordingHops]) does
 * each time its coroutine starts or resumes on a thread: a
 * [ThreadContextElement][kotlinx.coroutines.ThreadContextElement] in the task's coroutine context,
 * so kotlinx calls [updateThreadContext] on the thread that runs the coroutine at each start and
 * resume, and [restoreThreadContext] when it suspends or ends — also for every coroutine that
 * inherits the element (`withContext` blocks, `async`/`launch` children), which therefore belong to
 * the same task. One element does all three jobs, because kotlinx allocates per resume when a
 * context holds several thread-context elements:
 * - **hops**: records the resume as a step of the task's trace (when tracing is on) and as an event
 *   of its observation (when tasks are observed, `TaskObservations`) — and of every enclosing
 *   [recordingHops] trace;
 * - **context**: restores [captured] — the MDC and registered thread-locals of the thread that
 *   started the task — and puts the thread's own values back when the coroutine leaves the thread
 *   (`ContextPropagation`; the same as a `PropagatedContext` element).
 *
 * **Composing.** The element is a [CopyableThreadContextElement], so kotlinx asks it what a new
 * coroutine or `withContext` block gets when that context brings an element of the same key
 * ([mergeForChild]): a [recordingHops] element (no task, no context) is composed with it — one
 * element that does this one's jobs and also records into the added trace — so
 * `withContext(… + trace.recordingHops(…))` inside a task keeps the task's context, trace and
 * observation; a new task's element replaces it — each task keeps its own trace and context — and
 * records into the enclosing [recordingHops] traces as well. Children without an element of their
 * own share this one ([copyForChild] returns it). Each trace has one [HopRecorder], shared by every element that
 * records into it, so entering a composed block on the same thread is no step of the task.
 *
 * **What is a step.** A resume is recorded as a [Hop] when it runs on another thread, another
 * dispatcher or under another [HopNote] than the last recorded step of that trace; a resume on the
 * same thread in the same place records nothing (kotlinx calls [updateThreadContext] on every
 * resume, including a `yield()` back onto the same single thread). A `withContext` block that ends
 * before its caller suspends lets the caller go on without a resume, on the thread it never left:
 * that return is recorded at the caller's next resume, or, when the task's code ends first, when it
 * ends ([recordHere], before the task settles), so the last step is where the task's code ended.
 * The hop's context is the dispatcher's readable name ([ContextNames.contextName]), its note the
 * innermost [HopNote], else the recorder's default note (the task's name, or the [recordingHops]
 * note).
 *
 * **A restore that throws.** kotlinx calls [updateThreadContext] outside the coroutine's own
 * exception handling and cannot recover from an exception there (the coroutine never resumes, and
 * the other thread-context elements already updated for that resume are never restored). So this
 * element never throws: when the restore throws (it has already put the thread's own values back),
 * the coroutine fails with that exception at this resume, as if its code had thrown it there
 * ([failResume]): a start or a cancellable resume (the usual kind) delivers it at once, without
 * running the code; the task fails with it, or the `withContext` call of the block rethrows it.
 * A failure while putting the thread's own values back ([restoreThreadContext]) is reported to
 * `Tasks.uncaughtFailureHandler()`, as is a recorder's failure: neither changes the outcome.
 *
 * **Cost per resume.** When nothing changed: for each recorder one volatile read,
 * `Thread.currentThread()` and two identity comparisons (the thread, and the coroutine context
 * object, which stays the same object for one coroutine), plus the context's restore when there is
 * one to carry. Only another thread or context object (a `withContext` block, a child's first
 * resume) looks up the dispatcher and the note and allocates a new step marker; only a real hop
 * also records. Being copyable costs kotlinx one fold of the parent context per new coroutine or
 * `withContext` block in a task, never anything per resume.
 *
 * **Thread-safety.** Children of the task's coroutine may resume concurrently on several threads
 * and share this element: each resume compares against the last step and replaces it without a
 * lock, so two concurrent resumes may both be recorded (each is a real hop of some coroutine of the
 * task); nothing is lost or corrupted, since [HopTrace] is thread-safe. Each resume's restored
 * context is its own state, put back on the same thread. Immutable apart from the recorders' last
 * step.
 */
@OptIn(ExperimentalCoroutinesApi::class) // CopyableThreadContextElement
internal class TaskThreadContext private constructor(
    /** The task (for its observation's events and a failing restore), or null for [recordingHops]. */
    private val task: Task<*>?,
    internal val captured: CapturedContext?,
    /** Records into the task's own trace (or the [recordingHops] trace); null when it records nothing. */
    private val hops: HopRecorder?,
    /** Enclosing [recordingHops] traces that record this coroutine's hops too; null when none. */
    private val enclosing: Array<HopRecorder>?,
) : CopyableThreadContextElement<RestoredContext?> {

    /** The element of a task ([task] non-null) or of [recordingHops] (only a [trace]). */
    constructor(trace: HopTrace?, defaultNote: String, task: Task<*>?, captured: CapturedContext?) :
        this(task, captured, HopRecorder.of(trace, defaultNote, task), null)

    companion object Key : CoroutineContext.Key<TaskThreadContext>

    override val key: CoroutineContext.Key<*> get() = Key

    /** Whether this is only a [recordingHops] element: no task, no context to carry. */
    private val onlyRecords: Boolean get() = task == null && captured == null

    override fun updateThreadContext(context: CoroutineContext): RestoredContext? {
        recordHere(context)
        val c = captured ?: return null
        return try {
            ContextSteps.enter(c) // closed once, in restoreThreadContext; shared on a clean thread
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

    /** Records that a coroutine with [context] of this task runs on the current thread, if that is a hop. */
    internal fun recordHere(context: CoroutineContext) {
        if (hops != null) record(hops, context)
        if (enclosing != null) for (r in enclosing) record(r, context)
    }

    private fun record(recorder: HopRecorder, context: CoroutineContext) {
        try {
            recorder.record(context)
        } catch (e: Throwable) {
            Tasks.reportUncaught(e) // recording never fails the coroutine
        }
    }

    /** Children without an element of their own share this one. */
    override fun copyForChild(): CopyableThreadContextElement<RestoredContext?> = this

    /**
     * What a new coroutine or `withContext` block gets when its context brings [overwritingElement]
     * of this key: a new task's element, which keeps its own trace and context and also records into
     * this one's [recordingHops] traces; or, for a [recordingHops] element, this element recording
     * into that trace as well.
     */
    override fun mergeForChild(overwritingElement: CoroutineContext.Element): CoroutineContext {
        val added = overwritingElement as TaskThreadContext
        val traces = ArrayList<HopRecorder>(4)
        if (added.onlyRecords) {
            if (onlyRecords) traces.addRecorder(hops)
            enclosing?.forEach { traces.addRecorder(it) }
            traces.addRecorder(added.hops)
            added.enclosing?.forEach { traces.addRecorder(it) }
            if (onlyRecords) return TaskThreadContext(null, null, null, traces.toTypedArray())
            traces.removeAll { it.trace === hops?.trace } // the task's own trace records once
            return if (traces.isEmpty()) this else TaskThreadContext(task, captured, hops, traces.toTypedArray())
        }
        if (onlyRecords) traces.addRecorder(hops) // a task's own trace stays with that task
        enclosing?.forEach { traces.addRecorder(it) }
        if (traces.isEmpty()) return added
        added.enclosing?.forEach { traces.addRecorder(it) }
        traces.removeAll { it.trace === added.hops?.trace }
        return if (traces.isEmpty()) added else TaskThreadContext(added.task, added.captured, added.hops, traces.toTypedArray())
    }

    override fun toString() =
        "TaskThreadContext(${listOfNotNull(hops?.defaultNote ?: task?.toString()).plus(enclosing.orEmpty().map { it.defaultNote }).joinToString()})"
}

/** Adds [recorder]; one of the same trace is replaced, so the innermost [recordingHops] note wins. */
private fun MutableList<HopRecorder>.addRecorder(recorder: HopRecorder?) {
    if (recorder == null) return
    removeAll { it.trace === recorder.trace }
    add(recorder)
}
