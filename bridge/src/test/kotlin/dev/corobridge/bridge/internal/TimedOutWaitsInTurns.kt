package dev.corobridge.bridge.internal

import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.TestScope
import kotlinx.coroutines.withTimeout
import kotlin.test.assertEquals

/**
 * Two coroutines run [wait] [rounds] times each, every time cut by `withTimeout(10)`, the second
 * starting 5 ms (virtual time) after the first, so that each wait times out while the other waits;
 * a third reads how many callbacks [cell] keeps every 10 ms, between the timeouts. Asserts that all
 * `2 * rounds` waits timed out, and returns the most callbacks [cell] kept, at those reads and at the
 * end: what the waiter-churn leak tests bound.
 */
suspend fun TestScope.mostCallbacksKeptByTimedOutWaits(
    cell: dev.corobridge.bridge.Awaitable<*>,
    rounds: Int,
    wait: suspend () -> Unit,
): Int {
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
            most = maxOf(most, RetainedCallbacks.of(cell))
            delay(10)
        }
    }
    first.join()
    second.join()
    probe.join()
    assertEquals(2 * rounds, timeouts)
    return maxOf(most, RetainedCallbacks.of(cell))
}
