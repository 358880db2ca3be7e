package dev.corobridge.ring

import dev.corobridge.bridge.internal.BoundDispatchers
import dev.corobridge.bridge.ContextShutdownException
import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Delay
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.cancel
import kotlinx.coroutines.launch
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
        val timeout = RingTimeout(block, System.nanoTime(), timeMillis)
        try {
            val f = ring.eventLoop().schedule(block, timeMillis, TimeUnit.MILLISECONDS)
            timeout.onRing = f
            // Cancelled but not disposed: the loop's termination dropped it; the deadline moves.
            f.addListener { if (f.isCancelled) timeout.moveToDefaultTimer() }
        } catch (e: RejectedExecutionException) {
            timeout.moveToDefaultTimer() // the ring is gone already
        }
        return timeout
    }

    override fun toString(): String = ring.name
}

/**
 * A timeout set on a ring: its timer on the ring's loop ([onRing]) or, once the ring is gone, a
 * job on kotlinx's default timer that keeps the rest of the deadline. [dispose] stops whichever it
 * is; a move that races with it cancels the job it started. Thread-safe.
 */
private class RingTimeout(
    private val block: Runnable,
    private val startNanos: Long,
    private val timeMillis: Long,
) : DisposableHandle {
    @Volatile var onRing: java.util.concurrent.Future<*>? = null
    @Volatile private var disposed = false
    @Volatile private var onDefault: kotlinx.coroutines.Job? = null

    fun moveToDefaultTimer() {
        if (disposed) return
        val left = timeMillis - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos)
        @OptIn(kotlinx.coroutines.DelicateCoroutinesApi::class)
        val job = kotlinx.coroutines.GlobalScope.launch(Dispatchers.Default) {
            kotlinx.coroutines.delay(left)
            block.run()
        }
        onDefault = job
        if (disposed) job.cancel()
    }

    override fun dispose() {
        disposed = true
        onRing?.cancel(false)
        onDefault?.cancel()
    }
}
