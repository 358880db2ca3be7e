package dev.corobridge.bridge

import dev.corobridge.bridge.internal.mostCallbacksKeptByTimedOutWaits
import kotlinx.coroutines.test.runTest
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
        val task = Task.from(source)
        val rounds = 1_000
        val most = mostCallbacksKeptByTimedOutWaits(task, rounds) { task.await() }
        assertTrue(most < 100, "the task kept $most callbacks for 2 waiting coroutines after ${2 * rounds} timed-out waits")
        source.complete(1)
        assertEquals(1, task.await())
    }
}
