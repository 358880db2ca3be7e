package dev.corobridge.test

import dev.corobridge.pump.ManualPump
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeoutException
import kotlin.test.assertEquals

/**
 * The edges of what the leak check sees: a coroutine stuck in its cleanup after a cancellation is
 * still running; the pump's own wake-ups are no task left behind; and a coroutine's cleanup in
 * `withContext(NonCancellable)` that hops away and back stays on its test's pump (its job has no
 * parent there, so only its callers lead to the test).
 */
@OptIn(DelicateCoroutinesApi::class)
class LeakDetectionEdgesTest {

    @Sample
    @CorobridgeTest
    class Edges {
        @Test
        fun `leaves a Main coroutine stuck in its cleanup`(ui: ManualPump) {
            val never = CompletableDeferred<Unit>()
            val job = GlobalScope.launch(Dispatchers.Main + CoroutineName("stuck")) {
                try {
                    awaitCancellation()
                } finally {
                    withContext(NonCancellable) { never.await() }
                }
            }
            ui.runUntilIdle()
            job.cancel()
            ui.runUntilIdle()
        }

        @Test
        fun `waits in pumpUntil for a stage completed later on another thread`(ui: ManualPump) {
            val stage = CompletableFuture<String>()
            assertThrows<TimeoutException> { ui.pumpUntil(stage, Duration.ofMillis(1)) }
            Thread { stage.complete("late") }.apply { start(); join() }
        }

        @Test
        fun `cleans up in NonCancellable with a hop away and back`(ui: ManualPump) {
            HopThread("cleanup-hop").use { hop ->
                val steps = mutableListOf<String>()
                val job = GlobalScope.launch(Dispatchers.Main + CoroutineName("cleaner")) {
                    try {
                        awaitCancellation()
                    } finally {
                        withContext(NonCancellable) {
                            withContext(hop.dispatcher) { steps += "away" }
                            steps += "back on the test's pump: ${ui.isCurrentThread}"
                            delay(10)
                            steps += "after a delay on the test's pump: ${ui.isCurrentThread}"
                        }
                    }
                }
                ui.runUntilIdle()
                job.cancel()
                ui.runUntilIdle()
                hop.awaitTasks(1) // the hop finished: the resumption is queued on the pump
                ui.runUntilIdle()
                ui.advanceTimeBy(Duration.ofMillis(10))
                assertEquals(
                    listOf("away", "back on the test's pump: true", "after a delay on the test's pump: true"),
                    steps,
                )
                assertThat(job.isCompleted).`as`("the cleanup finished").isTrue()
            }
        }
    }

    @Test
    fun `a stuck cleanup is reported, a late wake-up and a cleanup after a hop are not leaks`() {
        val results = Samples.run(Edges::class.java)
        assertEquals(
            listOf("cleans up in NonCancellable with a hop away and back", "waits in pumpUntil for a stage completed later on another thread"),
            Samples.succeeded(results),
            results.allEvents().list().toString(),
        )
        val stuck = Samples.failureOf(results, "leaves a Main coroutine stuck in its cleanup") as LeakedWorkError
        assertThat(stuck.leaks()).singleElement().asString()
            .matches("1 coroutine still running on Dispatchers\\.Main \\(pump 'ui'\\): \"stuck(#\\d+)?\":StandaloneCoroutine\\{Cancelling}@.*")
    }
}
