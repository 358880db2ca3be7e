package dev.corobridge.sync

import dev.corobridge.bridge.Promise
import dev.corobridge.bridge.internal.mostCallbacksKeptByTimedOutWaits
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.test.runTest
import org.junit.jupiter.api.Test
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
        val most = mostCallbacksKeptByTimedOutWaits(shared, rounds, wait)
        assertTrue(most < 100, "the shared promise kept $most callbacks for 2 waiting coroutines after ${2 * rounds} timed-out waits")
    }
}
