package dev.corobridge.test

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Delay
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.Job
import kotlinx.coroutines.MainCoroutineDispatcher
import kotlinx.coroutines.launch
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.resume

/**
 * `Dispatchers.Main` while corobridge-test is on the class path: the pump of the test the coroutine
 * belongs to ([MainBindings.resolve]), so that tests running in parallel each have their own Main;
 * outside such a test, the Main dispatcher the class path would have had without this artifact
 * ([fallback]: corobridge-main's `MainPump`, a UI toolkit's, or none).
 *
 * It keeps the contract of kotlinx's Main dispatchers, as corobridge-main's does:
 * - it prints as `Dispatchers.Main`, and `Dispatchers.Main.immediate` for [immediate];
 * - on a test's pump, `Dispatchers.Main` always dispatches; [immediate] runs inline on the pump
 *   thread (the test thread, for a `ManualPump`) and dispatches elsewhere; both go through the
 *   pump's one queue, in posting order;
 * - `delay` uses the pump's timers (virtual time on a `ManualPump`) and resumes inside the timer,
 *   with this dispatcher as the one the coroutine runs on, so a delay costs one timer and no
 *   further pump task. A delay whose pump terminated first resumes through a dispatch, which the
 *   terminated pump turns into cancellation (it never resumes inline off the pump thread).
 * Outside a test, every call goes to [fallback] as it is (a `delay` there resumes through one more
 * dispatch, since the fallback does not know this dispatcher).
 *
 * Thread-safety: safe from any thread.
 */
@OptIn(InternalCoroutinesApi::class, ExperimentalCoroutinesApi::class)
internal class PerTestMainDispatcher(
    /** Main outside a test; null when no other Main dispatcher is on the class path. */
    private val fallback: Lazy<MainCoroutineDispatcher?>,
    private val isImmediate: Boolean = false,
) : MainCoroutineDispatcher(), Delay {

    private val immediateView by lazy(LazyThreadSafetyMode.PUBLICATION) {
        if (isImmediate) this else PerTestMainDispatcher(fallback, isImmediate = true)
    }

    override val immediate: MainCoroutineDispatcher get() = immediateView

    /** Where a call with [context] (and the continuation [frame], if known) goes: the test's pump dispatcher, or the fallback. */
    private fun target(context: CoroutineContext, frame: Any? = null): CoroutineDispatcher =
        target(MainBindings.resolve(context, frame))

    private fun target(binding: MainBinding?): CoroutineDispatcher {
        if (binding != null) {
            val pumpDispatcher = binding.pump.dispatcher
            return if (isImmediate) pumpDispatcher.immediate else pumpDispatcher
        }
        val main = fallback.value ?: throw IllegalStateException(NO_MAIN)
        return if (isImmediate) main.immediate else main
    }

    /**
     * Whether to dispatch rather than run inline: the test's pump's answer, or the fallback's
     * outside tests. A coroutine's context that leads to no test while a test runs (one back from a
     * hop inside `withContext(NonCancellable)`, whose job has no parent) is dispatched: [dispatch]
     * also has the continuation, whose callers tell ([MainBindings.resolve]).
     */
    override fun isDispatchNeeded(context: CoroutineContext): Boolean {
        val binding = MainBindings.resolve(context)
        if (binding == null && context[Job] != null && MainBindings.anyOpen()) {
            return true
        }
        return target(binding).isDispatchNeeded(context)
    }

    override fun dispatch(context: CoroutineContext, block: Runnable) = target(context, block).dispatch(context, block)

    override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>) {
        val binding = MainBindings.resolve(continuation.context, continuation)
        if (binding == null) {
            fallbackDelay().scheduleResumeAfterDelay(timeMillis, continuation)
            return
        }
        val pump = binding.pump
        val resumer: CoroutineDispatcher = this
        val handle = pump.dispatcher.invokeOnTimeout(timeMillis, {
            // In the timer on the pump thread: resume right here (kotlinx resumes in place because
            // this dispatcher is the coroutine's own). Anywhere else (the pump terminated and the
            // timer moved to the fallback): dispatch, so that the terminated pump cancels it.
            if (pump.isCurrentThread && !pump.isTerminated) {
                with(continuation) { resumer.resumeUndispatched(Unit) }
            } else {
                continuation.resume(Unit)
            }
        }, continuation.context)
        continuation.invokeOnCancellation { handle.dispose() }
    }

    override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle {
        val binding = MainBindings.resolve(context)
            ?: return fallbackDelay().invokeOnTimeout(timeMillis, block, context)
        return binding.pump.dispatcher.invokeOnTimeout(timeMillis, block, context)
    }

    /** The fallback's timers; kotlinx's default timer thread if the fallback has none of its own. */
    private fun fallbackDelay(): Delay {
        val main = fallback.value ?: throw IllegalStateException(NO_MAIN)
        return main as? Delay ?: DefaultTimers
    }

    override fun toString(): String = toStringInternalImpl()
        ?: ("CorobridgeTestMain" + if (isImmediate) ".immediate" else "")

    /** Timers for a fallback Main that is not a [Delay]: `delay` on kotlinx's default timer thread. */
    private object DefaultTimers : Delay {
        override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>) {
            val timer = CoroutineScope(Dispatchers.Unconfined).launch {
                kotlinx.coroutines.delay(timeMillis) // the top-level delay, not Delay.delay
                continuation.resume(Unit) // dispatched through Main, as a resumption must be
            }
            continuation.invokeOnCancellation { timer.cancel() }
        }

        override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle {
            val timer = CoroutineScope(Dispatchers.Unconfined).launch {
                kotlinx.coroutines.delay(timeMillis) // the top-level delay, not Delay.delay
                block.run()
            }
            return DisposableHandle { timer.cancel() }
        }
    }

    companion object {
        const val NO_MAIN = "Dispatchers.Main was used outside a test that @CorobridgeTest (or " +
            "@ExtendWith(CorobridgeExtension.class)) gives a pump, and no other Main dispatcher is on the " +
            "class path (e.g. corobridge-main with MainPump.install(pump)). Use it from the test's thread " +
            "or from a coroutine the test started."
    }
}
