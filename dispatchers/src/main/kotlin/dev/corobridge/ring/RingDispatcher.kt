package dev.corobridge.ring

import dev.corobridge.bridge.internal.BoundDispatchers
import dev.corobridge.bridge.ContextShutdownException
import dev.corobridge.dispatchers.internal.MovableTimeout
import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.cancel
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.TimeUnit
import kotlin.coroutines.CoroutineContext

/**
 * A [Ring] as a coroutine dispatcher, with `Delay` on the ring's own event-loop timers.
 *
 * [isDispatchNeeded] is `false` on the ring's own thread: a coroutine living on the ring resumes
 * inline when the ring completes its operation (zero hops; kotlinx's event loop bounds the stack),
 * like Netty's `inEventLoop()` shortcut. From any other thread it dispatches to the loop.
 *
 * After the ring shut down, a dispatch cancels the coroutine's job with a
 * [ContextShutdownException] and runs the continuation on `Dispatchers.IO` so that it can finish.
 * The event loop drops the timers that are not due when it terminates: a `delay` whose timer it
 * dropped cancels its coroutine the same way, at once, and a timeout (`withTimeout`) keeps what is
 * left of its deadline on kotlinx's default timer, as a [dev.corobridge.pump.PumpDispatcher] does
 * with the pump's timers. Nothing waits on a terminated ring for ever.
 */
@OptIn(InternalCoroutinesApi::class, ExperimentalCoroutinesApi::class)
public class RingDispatcher internal constructor(
    /** The ring this dispatcher runs on. */
    public val ring: Ring,
) : CoroutineDispatcher(), Delay {

    init {
        // Tells the bridge's Java API which context this dispatcher is the face of.
        BoundDispatchers.register(RingDispatcher::class.java) { it.ring }
    }

    override fun isDispatchNeeded(context: CoroutineContext): Boolean = !ring.isCurrentThread()

    override fun dispatch(context: CoroutineContext, block: Runnable) {
        try {
            ring.execute(block)
        } catch (e: RejectedExecutionException) {
            context.cancel(ContextShutdownException("${ring.name} has shut down; the coroutine was cancelled"))
            Dispatchers.IO.dispatch(context, block)
        }
    }

    override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>) {
        val f = try {
            ring.eventLoop().schedule({ with(continuation) { resumeUndispatched(Unit) } }, timeMillis, TimeUnit.MILLISECONDS)
        } catch (e: RejectedExecutionException) {
            continuation.cancel(ContextShutdownException("${ring.name} has shut down"))
            return
        }
        // Cancelled while the continuation still waits: not by it (its cancellation comes first),
        // so by the loop's termination, which drops the timers that are not due.
        f.addListener {
            if (f.isCancelled && continuation.isActive) {
                val shutdown = ContextShutdownException("${ring.name} has shut down; the coroutine's delay was cut short")
                continuation.context.cancel(shutdown)
                continuation.cancel(shutdown)
            }
        }
        continuation.invokeOnCancellation { f.cancel(false) }
    }

    override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle {
        val timeout = MovableTimeout(block, MovableTimeout.deadlineIn(timeMillis))
        try {
            val f = ring.eventLoop().schedule(block, timeMillis, TimeUnit.MILLISECONDS)
            timeout.cancelTimer = Runnable { f.cancel(false) }
            // Cancelled but not disposed: the loop's termination dropped it; the deadline moves.
            f.addListener { if (f.isCancelled) timeout.moveToFallback() }
        } catch (e: RejectedExecutionException) {
            timeout.moveToFallback() // the ring is gone already
        }
        return timeout
    }

    override fun toString(): String = ring.name
}
