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
        try {
            val f = ring.eventLoop().schedule({ with(continuation) { resumeUndispatched(Unit) } }, timeMillis, TimeUnit.MILLISECONDS)
            continuation.invokeOnCancellation { f.cancel(false) }
        } catch (e: RejectedExecutionException) {
            continuation.cancel(ContextShutdownException("${ring.name} has shut down"))
        }
    }

    override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle =
        try {
            val f = ring.eventLoop().schedule(block, timeMillis, TimeUnit.MILLISECONDS)
            DisposableHandle { f.cancel(false) }
        } catch (e: RejectedExecutionException) {
            // The ring is gone: keep the deadline on kotlinx's default timer.
            @OptIn(kotlinx.coroutines.DelicateCoroutinesApi::class)
            val job = kotlinx.coroutines.GlobalScope.launch(Dispatchers.Default) {
                kotlinx.coroutines.delay(timeMillis)
                block.run()
            }
            DisposableHandle { job.cancel() }
        }

    override fun toString(): String = ring.name
}
