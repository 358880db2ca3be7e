package dev.corobridge.pump

import dev.corobridge.bridge.internal.BoundDispatchers
import dev.corobridge.dispatchers.internal.MovableTimeout
import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.MainCoroutineDispatcher
import kotlinx.coroutines.cancel
import java.util.concurrent.TimeUnit
import kotlin.coroutines.CoroutineContext

/**
 * A [MessagePump] as a coroutine dispatcher: `withContext(pump.dispatcher) { ... }` runs the block
 * on the pump thread. Obtain it from [MessagePump.getDispatcher]; one instance per pump, so
 * [equals]/[hashCode] are stable and `withContext` to the same pump is recognised as no switch.
 *
 * **Dispatch.** [isDispatchNeeded] is always `true`: a resumption on the pump is enqueued and runs
 * from the loop, never on the caller's stack, even when the caller is the pump thread itself.
 * [immediate] is the documented opt-in exception: it runs inline when already on the pump thread.
 * Its stack is bounded by kotlinx's own event loop for undispatched resumptions (nested inline
 * resumptions queue up instead of recursing), as for `Dispatchers.Main.immediate`.
 *
 * **Delay.** `delay`, `withTimeout` and `invokeOnTimeout` use the pump's own timers; a resumption
 * after a delay runs from the loop, inside the timer, without a second trip through the queue (the
 * same holds for `Dispatchers.Main` backed by the pump, see [MainPump]).
 *
 * **After shutdown.** A dispatch the terminated pump cannot take is never dropped: the coroutine's
 * job is cancelled with [PumpShutdownException] and the continuation runs on the pump's fallback
 * executor (default `Dispatchers.IO`) so that it can finish, as kotlinx's executor dispatchers do.
 * Timers that were not due yet are handled the same way (timeouts keep their deadline on the
 * fallback).
 *
 * It is bound to its pump: Java can hand it to `Task.start`/`thenOn`, which then use the pump's
 * own Executor face (no fallback after termination: the task is cancelled as a shutdown).
 *
 * Thread-safety: safe from any thread.
 */
@OptIn(InternalCoroutinesApi::class, ExperimentalCoroutinesApi::class)
public class PumpDispatcher internal constructor(
    /** The pump this dispatcher runs on. */
    public val pump: MessagePump,
    private val isImmediateView: Boolean,
) : MainCoroutineDispatcher(), Delay {

    init {
        // Tells the bridge's Java API which context this dispatcher is the face of.
        BoundDispatchers.register(PumpDispatcher::class.java) { it.pump }
    }

    private val immediateView: PumpDispatcher by lazy(LazyThreadSafetyMode.PUBLICATION) {
        if (isImmediateView) this else PumpDispatcher(pump, true)
    }

    /** Runs inline when already on the pump thread; otherwise dispatches. Opt-in; see the class doc. */
    override val immediate: PumpDispatcher get() = immediateView

    // A terminated pump's former thread (a ManualPump's test thread, a runLoop() caller) must not
    // run resumptions inline either: dispatching sends them to the rejection path (cancel + fallback).
    override fun isDispatchNeeded(context: CoroutineContext): Boolean =
        !isImmediateView || !pump.isCurrentThread || pump.isTerminated

    override fun dispatch(context: CoroutineContext, block: Runnable) {
        if (!pump.enqueueDispatch(block)) {
            rejected(context, block)
        }
    }

    private fun rejected(context: CoroutineContext, block: Runnable) {
        context.cancel(shutdownException())
        pump.fallbackExecutor().execute(block)
    }

    private fun shutdownException() = PumpShutdownException(
        pump.name, "terminated; the coroutine was cancelled and resumes on the fallback executor"
    )

    override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>): Unit =
        scheduleResumeAfterDelay(timeMillis, continuation, this)

    /**
     * `delay` on the pump's timers for a continuation that runs on [resumer]: this dispatcher, or
     * the `Dispatchers.Main` that delegates to it. When the timer fires (on the pump thread), the
     * continuation resumes right there, in the timer, if [resumer] is the dispatcher it runs on;
     * kotlinx checks that identity (`resumeUndispatched`) and dispatches once more otherwise, which
     * costs a second pump task and, on an immediate view, changes the order of what the resumed
     * coroutine resumes in turn.
     */
    internal fun scheduleResumeAfterDelay(
        timeMillis: Long,
        continuation: CancellableContinuation<Unit>,
        resumer: CoroutineDispatcher,
    ) {
        val delay = PumpDelay(continuation, resumer)
        if (!delay.startOn(this, TimeUnit.MILLISECONDS.toNanos(timeMillis))) {
            continuation.context.cancel(shutdownException())
            continuation.cancel(shutdownException())
            return
        }
        continuation.invokeOnCancellation { delay.cancel() }
    }

    /**
     * One `delay`'s timer. It starts on one pump's timers and, if that pump terminates before the
     * delay is due while another pump backs `Dispatchers.Main`, moves to that pump's timers for the
     * rest of its time ([abandoned]). The coroutine's cancellation handler (registered once) cancels
     * whichever timer holds it then.
     */
    private class PumpDelay(
        val continuation: CancellableContinuation<Unit>,
        val resumer: CoroutineDispatcher,
    ) {
        @Volatile
        private var timer: PumpTimer? = null

        @Volatile
        private var cancelled = false

        /** Schedules the rest, [nanos], on [dispatcher]'s pump; false if that pump has terminated. */
        fun startOn(dispatcher: PumpDispatcher, nanos: Long): Boolean {
            val pump = dispatcher.pump
            val due = pump.clock.nanoTime() + nanos
            val t = pump.scheduleTimer(
                nanos,
                { with(continuation) { dispatcher.resumerNow(resumer).resumeUndispatched(Unit) } },
                { dispatcher.abandoned(this, due - pump.clock.nanoTime()) },
            ) ?: return false
            timer = t
            if (cancelled) t.cancel() // cancelled while it moved: the handler saw the previous timer
            return true
        }

        fun cancel() {
            cancelled = true
            timer?.cancel()
        }
    }

    /**
     * The pump terminated before the delay was due, [leftNanos] before it. A delay of
     * `Dispatchers.Main` that another pump backs now is that pump's to finish: the rest of its time
     * runs on that pump's timers and it resumes there (cancelling it for a pump it no longer runs
     * on would be wrong, and resuming it at once would end a `delay` early). Otherwise the coroutine
     * is cancelled, as every coroutine left on a terminated pump is.
     */
    private fun abandoned(delay: PumpDelay, leftNanos: Long) {
        val resumer = delay.resumer
        val main = MainPump.current()
        if (resumer is PumpMainDispatcher && main != null && main !== pump &&
            delay.startOn(main.dispatcher, maxOf(0L, leftNanos))
        ) {
            return
        }
        delay.continuation.cancel(shutdownException())
    }

    /**
     * [resumer], unless it is `Dispatchers.Main` and no longer backed by this pump (another pump
     * was installed since the delay began): then this dispatcher, which makes kotlinx dispatch
     * through Main to the pump that backs it now instead of resuming here.
     */
    private fun resumerNow(resumer: CoroutineDispatcher): CoroutineDispatcher =
        if (resumer is PumpMainDispatcher && !resumer.isBackedBy(pump)) this else resumer

    override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle {
        val handle = MovableTimeout(block, MovableTimeout.deadlineIn(timeMillis))
        val timer = pump.scheduleTimer(TimeUnit.MILLISECONDS.toNanos(timeMillis), block) { handle.moveToFallback() }
        if (timer == null) {
            handle.moveToFallback()
        } else {
            handle.cancelTimer = Runnable { timer.cancel() }
        }
        return handle
    }

    /** The pump: Java APIs given this dispatcher use the pump's Executor face, which rejects after termination. */
    override fun toString(): String = "MessagePump[${pump.name}]" + if (isImmediateView) ".immediate" else ""

    override fun equals(other: Any?): Boolean =
        other is PumpDispatcher && other.pump === pump && other.isImmediateView == isImmediateView

    override fun hashCode(): Int = System.identityHashCode(pump) * 31 + if (isImmediateView) 1 else 0
}
