package dev.corobridge.bridge

import dev.corobridge.bridge.internal.RetainedCallbacks
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * `withTimeout { await() }` in a loop, by two coroutines whose waits overlap (virtual time: each
 * times out while the other waits, then waits again): the awaited task keeps no callbacks, and so
 * no continuations, of the waits that timed out.
 */
class AwaitWaiterChurnKotlinTest {

    @Test
    fun `overlapping withTimeout around await that time out in turn keep nothing of their past waits`() = runTest {
        val source = Promise<Int>()
        val task = Task.of(source)
        val rounds = 1_000
        var timeouts = 0
        var most = 0
        suspend fun waitInTurns() = repeat(rounds) {
            try {
                withTimeout(10) { task.await() }
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
                most = maxOf(most, RetainedCallbacks.of(task))
                delay(10)
            }
        }
        first.join()
        second.join()
        probe.join()
        assertEquals(2 * rounds, timeouts)
        most = maxOf(most, RetainedCallbacks.of(task))
        assertTrue(most < 100, "the task kept $most callbacks for 2 waiting coroutines after ${2 * rounds} timed-out waits")
        source.complete(1)
        assertEquals(1, task.await())
    }
}
