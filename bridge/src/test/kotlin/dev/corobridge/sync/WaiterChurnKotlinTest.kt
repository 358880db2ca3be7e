package dev.corobridge.sync

import dev.corobridge.bridge.Promise
import dev.corobridge.bridge.internal.RetainedCallbacks
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * The Kotlin faces of the event, the latch and the wait group, awaited with `withTimeout` by two
 * coroutines whose waits overlap (virtual time: each times out while the other waits): the shared
 * promise keeps no callbacks of the waits that timed out.
 */
class WaiterChurnKotlinTest {

    private val rounds = 500

    @Test
    fun `timed-out awaits of an event do not pile up`() = runTest {
        val event = AsyncEvent<String>()
        churn(event.state) { event.await() }
    }

    @Test
    fun `timed-out awaits of a latch do not pile up`() = runTest {
        val latch = AsyncLatch(1)
        churn(latch.open) { latch.await() }
    }

    @Test
    fun `timed-out awaits of a wait group do not pile up`() = runTest {
        val group = WaitGroup()
        group.add(1)
        churn(group.round.get().zero) { group.await() }
    }

    /** Two coroutines awaiting in turns, each wait timing out while the other waits: [shared] keeps few callbacks. */
    private suspend fun TestScope.churn(shared: Promise<*>, wait: suspend () -> Unit) {
        var timeouts = 0
        var most = 0
        suspend fun waitInTurns() = repeat(rounds) {
            try {
                withTimeout(10) { wait() }
            } catch (e: TimeoutCancellationException) {
                timeouts++
            }
        }
        val first = launch { waitInTurns() }
        val second = launch {
            delay(5)
            waitInTurns()
        }
        val probe = launch {
            delay(2)
            repeat(rounds) {
                most = maxOf(most, RetainedCallbacks.of(shared))
                delay(10)
            }
        }
        first.join()
        second.join()
        probe.join()
        assertEquals(2 * rounds, timeouts)
        most = maxOf(most, RetainedCallbacks.of(shared))
        assertTrue(most < 100, "the shared promise kept $most callbacks for 2 waiting coroutines after ${2 * rounds} timed-out waits")
    }
}
