package dev.corobridge.test

import dev.corobridge.pump.ManualPump
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.CyclicBarrier
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals

/**
 * Tests that run at the same time (JUnit's parallel execution) each have their own
 * `Dispatchers.Main`: two sample tests meet at a barrier (so they provably overlap), then each
 * starts coroutines on `Dispatchers.Main`, hops them to another thread and back, delays them on
 * virtual time, and meets the other test again between every step, so that each step of one test
 * happens while the other's pump is bound too. Each must find its coroutines only ever on its own
 * pump. With kotlinx's global `Dispatchers.setMain` one of them would see the other's pump (or a
 * pump already shut down).
 */
@OptIn(DelicateCoroutinesApi::class)
class ParallelMainTest {

    @Sample
    @CorobridgeTest
    class TwoTests {
        @Test
        fun first(ui: ManualPump) = scenario("first", ui)

        @Test
        fun second(ui: ManualPump) = scenario("second", ui)
    }

    @Test
    fun `two tests running at once each see their own pump as Dispatchers Main`() {
        val results = Samples.runInParallel(2, TwoTests::class.java)
        results.testEvents().assertStatistics { it.started(2).succeeded(2).failed(0) }
        assertEquals(setOf("first", "second"), seen.keys)
        val first = seen.getValue("first")
        val second = seen.getValue("second")
        assertThat(first.thread).isNotEqualTo(second.thread)
        assertThat(first.pump).isNotSameAs(second.pump)
        for (s in listOf(first, second)) {
            assertEquals(listOf("launched", "hopped back", "delayed", "child"), s.stepsOnOwnPump, s.toString())
            assertEquals(emptyList(), s.stepsElsewhere, s.toString())
        }
    }

    /** What one test saw. */
    data class Seen(
        val thread: String,
        val pump: ManualPump,
        val stepsOnOwnPump: MutableList<String> = mutableListOf(),
        val stepsElsewhere: MutableList<String> = mutableListOf(),
    )

    companion object {
        private const val PARTIES = 2
        private val barrier = CyclicBarrier(PARTIES)
        private val seen = ConcurrentHashMap<String, Seen>()

        /** Both tests are between the same two steps: the other one's pump is bound right now. */
        private fun meet() {
            barrier.await(60, TimeUnit.SECONDS)
        }

        private fun scenario(name: String, ui: ManualPump) {
            val s = Seen(Thread.currentThread().name, ui)
            seen[name] = s
            fun step(label: String) {
                synchronized(s) { (if (ui.isCurrentThread) s.stepsOnOwnPump else s.stepsElsewhere) += label }
            }
            HopThread("hop-$name").use { hop ->
                meet()
                val job = GlobalScope.launch(Dispatchers.Main + CoroutineName(name)) {
                    step("launched")
                    withContext(hop.dispatcher) { }
                    step("hopped back")
                    delay(1_000)
                    step("delayed")
                    launch(Dispatchers.Main.immediate) { step("child") }
                }
                meet()
                ui.runUntilIdle() // launched; off to the hop thread
                hop.awaitTasks(1) // its way back is queued on a pump: this one
                meet()
                ui.runUntilIdle()
                meet()
                ui.advanceTimeBy(Duration.ofSeconds(1))
                meet()
                ui.runUntilIdle()
                check(job.isCompleted) { "$name: the coroutine did not finish on its own pump: $s" }
            }
        }
    }
}
