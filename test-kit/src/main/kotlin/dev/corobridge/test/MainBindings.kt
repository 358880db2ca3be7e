package dev.corobridge.test

import dev.corobridge.pump.MessagePump
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.job
import java.util.IdentityHashMap
import java.util.WeakHashMap
import kotlin.coroutines.CoroutineContext

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
 *    and its children belong to this test wherever they resume.
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

    /** The binding whose pump is `Dispatchers.Main` for a dispatch with [context] on this thread; null: none. */
    fun resolve(context: CoroutineContext): MainBinding? {
        // NonCancellable is one job shared by everyone: it says nothing about whose coroutine this is.
        val job = context[Job]?.takeUnless { it === NonCancellable }
        if (job != null) {
            synchronized(lock) {
                var j: Job? = job
                while (j != null) {
                    val found = byJob[j] ?: byScopeJob[j]
                    if (found != null) {
                        if (j !== job) byJob[job] = found
                        return found
                    }
                    j = j.parent
                }
            }
        }
        val binding = onThread.get()?.takeIf { it.isOpen } ?: return null
        if (job != null) {
            synchronized(lock) { byJob[job] = binding }
        }
        return binding
    }

    /** The binding of the calling thread, if open. */
    fun current(): MainBinding? = onThread.get()?.takeIf { it.isOpen }

    /**
     * The coroutines registered under [binding] that are still active and not inside another one
     * listed or inside its pump's scope (the extension reports those separately): the roots of
     * what a test left running on `Dispatchers.Main`.
     */
    fun liveCoroutines(binding: MainBinding): List<Job> {
        val live = synchronized(lock) { byJob.entries.filter { it.value === binding && it.key.isActive }.map { it.key } }
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
