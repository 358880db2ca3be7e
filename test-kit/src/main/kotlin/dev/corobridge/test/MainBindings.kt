package dev.corobridge.test

import dev.corobridge.pump.MessagePump
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.job
import java.util.IdentityHashMap
import java.util.WeakHashMap
import kotlin.coroutines.Continuation
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.jvm.internal.CoroutineStackFrame

/**
 * Which test's pump `Dispatchers.Main` means for a given dispatch: the registry behind
 * [PerTestMainDispatcher].
 *
 * **Algorithm.** A dispatch (or `delay`, or `isDispatchNeeded`) on `Dispatchers.Main` comes with the
 * coroutine's context, on whatever thread resumes it: the test thread, or a pool or ring thread
 * when the coroutine comes back from `withContext(Dispatchers.IO)` or from ring I/O. So a thread
 * alone cannot say which test a coroutine belongs to; its job can. [resolve] looks, in order:
 * 1. at the context's job and its ancestors (`Job.parent`): the first one registered decides.
 *    Registered are the jobs of coroutines seen on Main under a binding (step 2), and the scope
 *    of each open binding's pump (so `pump.scope.launch(Dispatchers.Main)` is that test's from any
 *    thread). A job found through an ancestor is registered itself, so the walk happens once;
 * 2. at the binding of the current thread (set by the extension on the test thread for the
 *    duration of the test), and registers the context's job under it: from then on that coroutine
 *    and its children belong to this test wherever they resume;
 * 3. at the callers of the continuation being dispatched, for a coroutine inside
 *    `withContext(NonCancellable)` (see [resolve]).
 * Nothing found: `Dispatchers.Main` falls back to the next Main on the class path (see
 * [PerTestMainDispatcher]). A coroutine's binding never changes; once its test has ended, the
 * binding's pump is terminated and rejects the coroutine (cancelled with a `PumpShutdownException`)
 * rather than letting it run on another test's pump.
 *
 * The thread binding is a plain `ThreadLocal`, not an inheritable one: pool threads (kotlinx's
 * `Dispatchers.Default` workers, ring threads) are created by whichever thread first needs them and
 * outlive the test; inheriting would pin them to one test's pump. Coroutines reach their test
 * through their jobs instead.
 *
 * **Memory.** Coroutine jobs are held weakly (a `WeakHashMap` compared by identity, as kotlinx's
 * jobs do not override `equals`); pump scopes are held only while their binding is open, so a
 * finished test's pump is not kept alive by this registry.
 *
 * **Thread-safety.** Every method is safe from any thread; the maps are guarded by one lock, held
 * only for map operations and the parent walk (no foreign code runs under it).
 */
@OptIn(ExperimentalCoroutinesApi::class) // Job.parent
internal object MainBindings {
    private val lock = Any()

    /** How far [resolveByCallers] looks up a suspended call chain. */
    private const val MAX_CALLER_FRAMES = 256

    /** Coroutines seen on Main, by job, with the binding they belong to. Guarded by [lock]. */
    private val byJob = WeakHashMap<Job, MainBinding>()

    /** The scope job of each open binding's pump. Guarded by [lock]. */
    private val byScopeJob = IdentityHashMap<Job, MainBinding>()

    private val onThread = ThreadLocal<MainBinding?>()

    /**
     * Makes [pump] `Dispatchers.Main` for the calling thread and for coroutines in `pump.scope`,
     * until the returned binding is closed (on this thread).
     */
    fun open(pump: MessagePump): MainBinding {
        val binding = MainBinding(pump, onThread.get()?.takeIf { it.isOpen })
        synchronized(lock) {
            byScopeJob[pump.scope.coroutineContext.job] = binding
        }
        onThread.set(binding)
        return binding
    }

    /** Called by [MainBinding.close]. */
    internal fun release(binding: MainBinding) {
        synchronized(lock) {
            byScopeJob.remove(binding.pump.scope.coroutineContext.job, binding)
        }
        if (onThread.get() === binding) {
            val previous = binding.previous?.takeIf { it.isOpen }
            if (previous == null) onThread.remove() else onThread.set(previous)
        }
    }

    /**
     * The binding whose pump is `Dispatchers.Main` for a dispatch with [context] on this thread;
     * null: none. [frame]: the continuation being dispatched or resumed, if the caller has it (a
     * `Runnable` kotlinx dispatches, a `delay`'s continuation): when neither the job nor the thread
     * tells, its callers do (step 3 below).
     *
     * 3. A coroutine inside `withContext(NonCancellable)` runs under a job whose parent is nobody:
     *    `NonCancellable` takes no children. Back on Main after a hop from there, neither its job nor
     *    the thread (a pool's) leads to the test, but the suspended calls it resumes into do: each
     *    caller frame that is a continuation carries its coroutine's context, and the first whose
     *    job is registered decides (bounded walk, taken only then).
     */
    fun resolve(context: CoroutineContext, frame: Any? = null): MainBinding? {
        // NonCancellable is one job shared by everyone: it says nothing about whose coroutine this is.
        val job = context[Job]?.takeUnless { it === NonCancellable }
        if (job != null) {
            synchronized(lock) {
                registeredAncestor(job)?.let { return it }
            }
        }
        val binding = onThread.get()?.takeIf { it.isOpen }
        if (binding == null) {
            return if (frame == null) null else resolveByCallers(job, frame)
        }
        if (job != null) {
            synchronized(lock) { byJob[job] = binding }
        }
        return binding
    }

    /** Under [lock]: the binding of [job] or of its nearest registered ancestor (registering [job] then). */
    private fun registeredAncestor(job: Job): MainBinding? {
        var j: Job? = job
        while (j != null) {
            val found = byJob[j] ?: byScopeJob[j]
            if (found != null) {
                if (j !== job) byJob[job] = found
                return found
            }
            j = j.parent
        }
        return null
    }

    /** Step 3 of [resolve]: the binding of the first caller frame of [frame] whose coroutine is registered. */
    private fun resolveByCallers(job: Job?, frame: Any): MainBinding? {
        var f = frame as? CoroutineStackFrame
        var left = MAX_CALLER_FRAMES
        while (f != null && left-- > 0) {
            val callerJob = (f as? Continuation<*>)?.context?.get(Job)?.takeUnless { it === NonCancellable }
            if (callerJob != null && callerJob !== job) {
                val found = synchronized(lock) { registeredAncestor(callerJob) }
                if (found != null) {
                    if (job != null) synchronized(lock) { byJob[job] = found }
                    return found
                }
            }
            f = f.callerFrame
        }
        return null
    }

    /** Whether any test's binding is open (a test runs now). */
    fun anyOpen(): Boolean = synchronized(lock) { byScopeJob.isNotEmpty() }

    /** The binding of the calling thread, if open. */
    fun current(): MainBinding? = onThread.get()?.takeIf { it.isOpen }

    /**
     * The coroutines registered under [binding] that are still active and not inside another one
     * listed or inside its pump's scope (the extension reports those separately): the roots of
     * what a test left running on `Dispatchers.Main`.
     */
    fun liveCoroutines(binding: MainBinding): List<Job> {
        // Not completed rather than active: a coroutine cancelled but still in its cleanup (a
        // finally block waiting in withContext(NonCancellable)) is still running.
        val live = synchronized(lock) { byJob.entries.filter { it.value === binding && !it.key.isCompleted }.map { it.key } }
        val scopeJob = binding.pump.scope.coroutineContext.job
        val liveSet = live.toCollection(java.util.Collections.newSetFromMap(IdentityHashMap()))
        return live.filter { job ->
            var ancestor = job.parent
            while (ancestor != null) {
                if (ancestor === scopeJob || ancestor in liveSet) return@filter false
                ancestor = ancestor.parent
            }
            true
        }
    }
}
