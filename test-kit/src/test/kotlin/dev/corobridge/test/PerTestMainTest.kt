package dev.corobridge.test

import dev.corobridge.pump.ManualPump
import dev.corobridge.pump.PumpShutdownException
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.Job
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.test.assertContains
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNotEquals
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * Inside a `@CorobridgeTest`, `Dispatchers.Main` is the test's [ManualPump] and keeps the contract
 * of kotlinx's Main dispatchers (the one corobridge-main's keeps, `MainDispatcherContractTest` in
 * dispatchers): names, the `immediate` view, one queue, `delay` resumed inside the pump's timer,
 * and a coroutine stays on its test's pump wherever it resumes from. This class uses the
 * extension itself; there is no kotlinx-coroutines-test here, so `Dispatchers.Main` is the test
 * kit's own.
 */
@CorobridgeTest(pumpName = "main-test")
@OptIn(DelicateCoroutinesApi::class)
class PerTestMainTest {

    @Test
    fun `Main and Main immediate print the names every kotlinx Main prints`() {
        assertEquals("Dispatchers.Main", Dispatchers.Main.toString())
        assertEquals("Dispatchers.Main.immediate", Dispatchers.Main.immediate.toString())
    }

    @Test
    fun `the immediate view is its own immediate and differs from Main`() {
        val immediate = Dispatchers.Main.immediate
        assertSame(immediate, immediate.immediate)
        assertNotEquals<CoroutineDispatcher>(Dispatchers.Main, immediate)
    }

    @Test
    fun `a coroutine started on Main runs on the test's pump, on the test thread, when the test drives it`(ui: ManualPump) {
        val testThread = Thread.currentThread()
        var ranOn: Thread? = null
        val job = GlobalScope.launch(Dispatchers.Main) { ranOn = Thread.currentThread() }
        assertEquals(null, ranOn, "Main always dispatches: nothing ran yet")
        assertEquals(1, ui.runUntilIdle())
        assertSame(testThread, ranOn)
        assertTrue(job.isCompleted)
    }

    @Test
    fun `Main always needs a dispatch, Main immediate only off the pump thread or after termination`(ui: ManualPump) {
        // A coroutine's job ties it to this test wherever it is asked from: here a bare Job that
        // Main has seen on the test thread.
        val job = Job()
        assertTrue(Dispatchers.Main.isDispatchNeeded(job), "on the pump thread")
        assertFalse(Dispatchers.Main.immediate.isDispatchNeeded(job), "on the pump thread")
        val offPump = onOtherThread {
            Dispatchers.Main.isDispatchNeeded(job) to Dispatchers.Main.immediate.isDispatchNeeded(job)
        }
        assertEquals(true to true, offPump, "(Main, Main.immediate) off the pump thread")
        ui.shutdown(Duration.ZERO)
        ui.runUntilIdle()
        assertTrue(ui.isTerminated)
        assertTrue(Dispatchers.Main.immediate.isDispatchNeeded(job), "a terminated pump runs nothing inline")
        job.cancel()
    }

    @Test
    fun `Main and Main immediate share the pump's queue in posting order`(ui: ManualPump) {
        val order = mutableListOf<String>()
        onOtherThread {
            ui.scope.launch(Dispatchers.Main) { order += "main-1" }
            ui.scope.launch(Dispatchers.Main.immediate) { order += "immediate" }
            ui.scope.launch(Dispatchers.Main) { order += "main-2" }
            ui.execute { order += "execute" }
        }
        ui.runUntilIdle()
        assertEquals(listOf("main-1", "immediate", "main-2", "execute"), order)
    }

    @Test
    fun `on the pump thread Main immediate enters inline and Main queues`(ui: ManualPump) {
        val order = mutableListOf<String>()
        GlobalScope.launch(Dispatchers.Main) {
            order += "outer"
            launch(Dispatchers.Main) { order += "queued child" }
            withContext(Dispatchers.Main.immediate) { order += "inline" }
            order += "outer end"
        }
        ui.runUntilIdle()
        assertEquals(listOf("outer", "inline", "outer end", "queued child"), order)
    }

    @Test
    fun `delay on Main runs on the pump's virtual clock`(ui: ManualPump) {
        var woke = false
        GlobalScope.launch(Dispatchers.Main) {
            delay(Duration.ofHours(1).toMillis())
            woke = true
        }
        ui.runUntilIdle()
        ui.advanceTimeBy(Duration.ofMinutes(59))
        assertFalse(woke)
        ui.advanceTimeBy(Duration.ofMinutes(1))
        assertTrue(woke)
    }

    @Test
    fun `after delay Main immediate resumes in the order Swing's does`(ui: ManualPump) {
        val order = mutableListOf<String>()
        GlobalScope.launch(Dispatchers.Main.immediate) {
            val channel = Channel<Unit>()
            launch {
                channel.receive()
                order += "received"
            }
            delay(100)
            order += "sending"
            channel.send(Unit)
            order += "sent"
        }
        ui.runUntilIdle()
        ui.advanceTimeBy(Duration.ofMillis(100))
        assertEquals(listOf("sending", "received", "sent"), order)
    }

    @Test
    fun `a delay on Main or Main immediate resumes inside its timer, without another pump task`(ui: ManualPump) {
        for (main in listOf(Dispatchers.Main, Dispatchers.Main.immediate)) {
            var resumedOnPump = false
            GlobalScope.launch(main) {
                delay(100)
                resumedOnPump = ui.isCurrentThread
            }
            ui.runUntilIdle()
            val before = ui.metrics
            ui.advanceTimeBy(Duration.ofMillis(100))
            val after = ui.metrics
            assertTrue(resumedOnPump, "$main: resumed on the pump")
            assertEquals(0L to 1L, (after.dispatches() - before.dispatches()) to (after.timersFired() - before.timersFired()),
                "$main: (pump tasks, timers) for one delay")
        }
    }

    @Test
    fun `withTimeout on Main times out on the pump's virtual clock`(ui: ManualPump) {
        var failure: Throwable? = null
        GlobalScope.launch(Dispatchers.Main) {
            failure = runCatching { withTimeout(5_000) { awaitCancellation() } }.exceptionOrNull()
        }
        ui.runUntilIdle()
        ui.advanceTimeBy(Duration.ofMillis(4_999))
        assertEquals(null, failure)
        ui.advanceTimeBy(Duration.ofMillis(1))
        assertIs<TimeoutCancellationException>(failure)
    }

    @Test
    fun `a coroutine that hops to another thread comes back to this test's pump`(ui: ManualPump) {
        HopThread("hop").use { hop ->
            val steps = mutableListOf<String>()
            GlobalScope.launch(Dispatchers.Main + CoroutineName("hopper")) {
                steps += "start on pump: ${ui.isCurrentThread}"
                // The thread's name without the " @hopper#n" of kotlinx's debug mode (on under -ea).
                val away = withContext(hop.dispatcher) { Thread.currentThread().name.substringBefore(" @") }
                steps += "back from $away on pump: ${ui.isCurrentThread}"
                // A child started off the pump, on Main, is this test's too (found through its parent).
                withContext(hop.dispatcher) {
                    launch(Dispatchers.Main) { steps += "child on pump: ${ui.isCurrentThread}" }
                }
                steps += "end on pump: ${ui.isCurrentThread}"
            }
            ui.runUntilIdle()
            hop.awaitTasks(1) // the first hop finished: its resumption is queued on the pump
            ui.runUntilIdle()
            hop.awaitTasks(1) // the second: the child is queued; the parent resumes once it is done
            ui.runUntilIdle()
            assertEquals(
                listOf("start on pump: true", "back from hop on pump: true", "child on pump: true", "end on pump: true"),
                steps,
            )
        }
    }

    @Test
    fun `a delay whose pump terminated meanwhile cancels its coroutine instead of resuming it off the pump`(ui: ManualPump) {
        val outcome = CompletableFuture<Throwable?>()
        var resumedOffPump = false
        val job = GlobalScope.launch(Dispatchers.Main) {
            delay(1)
            resumedOffPump = !ui.isCurrentThread
        }
        job.invokeOnCompletion { outcome.complete(it) }
        ui.runUntilIdle() // the coroutine is in its delay, on a pump timer
        ui.shutdownNow()
        ui.runUntilIdle()
        assertTrue(ui.isTerminated)
        val cause = outcome.get(60, TimeUnit.SECONDS)
        assertIs<PumpShutdownException>(cause, "cancelled by the terminated pump: $cause")
        assertFalse(resumedOffPump)
    }

    @Test
    fun `outside a test Main has no pump and says how to get one`() {
        val failure = onOtherThread {
            runCatching { Dispatchers.Main.isDispatchNeeded(EmptyCoroutineContext) }.exceptionOrNull()
        }
        assertIs<IllegalStateException>(failure)
        assertContains(failure.message.orEmpty(), "@CorobridgeTest")
        assertContains(failure.message.orEmpty(), "no other Main dispatcher is on the class path")
    }

    /** Runs [body] on a thread of its own (not bound to any test) and returns its result. */
    private fun <T> onOtherThread(body: () -> T): T {
        val result = CompletableFuture<T>()
        Thread({ runCatching(body).fold(result::complete, result::completeExceptionally) }, "off-pump").start()
        return result.get(60, TimeUnit.SECONDS)
    }
}
