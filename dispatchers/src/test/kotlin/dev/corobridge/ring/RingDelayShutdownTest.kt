package dev.corobridge.ring

import dev.corobridge.bridge.ContextShutdownException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Test
import java.util.concurrent.TimeUnit
import kotlin.test.assertIs
import kotlin.test.assertTrue

/**
 * A coroutine waiting on a ring's timers when the pool shuts down is never lost: the event loop
 * drops the timers that are not due when it terminates, and a `delay` whose timer went with it
 * never resumed (a `withTimeout` never fired), while the pool reported a clean shutdown. Now a
 * delay cut short by the shutdown cancels its coroutine with [ContextShutdownException] at once, and
 * a timeout keeps its deadline on kotlinx's default timer, as the pump does with its own timers.
 */
@OptIn(DelicateCoroutinesApi::class)
class RingDelayShutdownTest {

    @Test
    fun `a delay and a timeout pending on a ring when its pool shuts down still end`() = runBlocking<Unit> {
        val pool = RingPool.start(RingPoolConfig.builder().name("delay-shutdown").rings(1).build())
        val ring = pool.next()
        val delayed = CompletableDeferred<Throwable?>()
        val sleeping = CompletableDeferred<Unit>()
        val timing = CompletableDeferred<Unit>()
        val sleeper = GlobalScope.launch(ring.dispatcher) {
            try {
                sleeping.complete(Unit) // the delay's timer is set in this same run of the ring
                delay(600_000)
                delayed.complete(null)
            } catch (e: Throwable) {
                delayed.complete(e)
                throw e
            }
        }
        val timed = GlobalScope.async(ring.dispatcher) {
            withTimeout(1_500) {
                timing.complete(Unit)
                awaitCancellation()
            }
        }
        withTimeout(10_000) { sleeping.await(); timing.await() } // both wait on the ring's timers
        pool.shutdown().get(30, TimeUnit.SECONDS)
        assertTrue(pool.isTerminated)

        val cause = withTimeout(10_000) { delayed.await() }
        assertIs<ContextShutdownException>(cause, "the delay ends with the shutdown, at once")
        withTimeout(10_000) { sleeper.join() }
        assertTrue(sleeper.isCancelled)

        val timeout = withTimeout(10_000) { timed.join(); timed.getCompletionExceptionOrNull() }
        assertTrue(timeout is TimeoutCancellationException || timeout is ContextShutdownException,
            "the timeout fires at its deadline on the default timer, then the ring's end cancels it: $timeout")
    }

    @Test
    fun `a delay cancelled by its own coroutine does not cancel anything else when the pool shuts down`() = runBlocking<Unit> {
        val pool = RingPool.start(RingPoolConfig.builder().name("delay-cancel").rings(1).build())
        val ring = pool.next()
        val outer = GlobalScope.async(ring.dispatcher) {
            val inner = launch { delay(600_000) }
            delay(50)
            inner.cancel()
            inner.join()
            "outer went on"
        }
        kotlin.test.assertEquals("outer went on", withTimeout(10_000) { outer.await() })
        pool.shutdown().get(30, TimeUnit.SECONDS)
    }
}
