package dev.corobridge.pump

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.ExperimentalCoroutinesApi
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.delay
import kotlinx.coroutines.cancel
import kotlinx.coroutines.launch
import kotlinx.coroutines.test.resetMain
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotEquals
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * The contract every kotlinx `Dispatchers.Main` keeps (Swing's, JavaFX's, Android's), checked for
 * the pump's: names, the `immediate` view, `isDispatchNeeded`, one queue for both views, and
 * resumption after `delay` without a second trip through the queue.
 *
 * kotlinx-coroutines-test is on this class path, so `Dispatchers.Main` itself is kotlinx's
 * `TestMainDispatcher`, which forwards to the pump's Main; `Dispatchers.Main.immediate` is the
 * pump's immediate view itself. [RealDispatchersMainTest] checks the same contract where the pump's
 * dispatcher *is* `Dispatchers.Main`. A [ManualPump] makes every ordering deterministic: the test
 * thread is the pump thread, and time moves only when the test says so.
 */
@OptIn(ExperimentalCoroutinesApi::class)
class MainDispatcherContractTest {
    private val pump = ManualPump.create("main-contract")

    @AfterEach
    fun tearDown() {
        Dispatchers.resetMain()
        MainPump.uninstall(pump)
        pump.shutdownNow()
        pump.runUntilIdle()
    }

    @Test
    fun `Main and Main immediate print the names every kotlinx Main prints`() {
        MainPump.install(pump)
        assertEquals("Dispatchers.Main", Dispatchers.Main.toString())
        assertEquals("Dispatchers.Main.immediate", Dispatchers.Main.immediate.toString())
    }

    @Test
    fun `the immediate view is its own immediate and differs from Main`() {
        MainPump.install(pump)
        val immediate = Dispatchers.Main.immediate
        assertSame(immediate, immediate.immediate)
        assertNotEquals<CoroutineDispatcher>(Dispatchers.Main, immediate)
    }

    @Test
    fun `Main always needs a dispatch, Main immediate only off the pump thread or after termination`() {
        MainPump.install(pump)
        val ctx = EmptyCoroutineContext
        assertTrue(Dispatchers.Main.isDispatchNeeded(ctx), "on the pump thread")
        assertFalse(Dispatchers.Main.immediate.isDispatchNeeded(ctx), "on the pump thread")
        val offPump = runOnOtherThread {
            Dispatchers.Main.isDispatchNeeded(ctx) to Dispatchers.Main.immediate.isDispatchNeeded(ctx)
        }
        assertEquals(true to true, offPump, "(Main, Main.immediate) off the pump thread")
        pump.shutdown(Duration.ZERO)
        pump.runUntilIdle()
        assertTrue(pump.isTerminated)
        assertTrue(Dispatchers.Main.immediate.isDispatchNeeded(ctx), "a terminated pump runs nothing inline")
    }

    @Test
    fun `Main and Main immediate share the pump's queue in posting order`() {
        MainPump.install(pump)
        val order = mutableListOf<String>()
        runOnOtherThread {
            pump.scope.launch(Dispatchers.Main) { order += "main-1" }
            pump.scope.launch(Dispatchers.Main.immediate) { order += "immediate" }
            pump.scope.launch(Dispatchers.Main) { order += "main-2" }
            pump.execute { order += "post" }
        }
        pump.runUntilIdle()
        assertEquals(listOf("main-1", "immediate", "main-2", "post"), order)
    }

    @Test
    fun `on the pump thread Main immediate enters inline and Main queues`() {
        MainPump.install(pump)
        val order = mutableListOf<String>()
        pump.execute {
            pump.scope.launch(Dispatchers.Main) {
                order += "outer"
                launch(Dispatchers.Main) { order += "queued child" }
                withContext(Dispatchers.Main.immediate) { order += "inline" }
                order += "outer end"
            }
        }
        pump.runUntilIdle()
        assertEquals(listOf("outer", "inline", "outer end", "queued child"), order)
    }

    @Test
    fun `after delay Main immediate resumes in the order Swing's does`() {
        MainPump.install(pump)
        assertEquals(EXPECTED_AFTER_DELAY, orderAfterDelay(pump.dispatcher.immediate), "the pump's own immediate view")
        assertEquals(EXPECTED_AFTER_DELAY, orderAfterDelay(Dispatchers.Main.immediate), "Dispatchers.Main.immediate")
    }

    @Test
    fun `a delay on Main immediate resumes inside its timer, without another pump task`() {
        MainPump.install(pump)
        assertEquals(0L to 1L, costOfOneDelay(Dispatchers.Main.immediate), "(pump tasks, timers) for one delay")
    }

    @Test
    fun `a delay whose pump was replaced meanwhile resumes on the pump installed now`() {
        MainPump.install(pump)
        val resumedOn = CompletableFuture<Thread>()
        pump.scope.launch(Dispatchers.Main.immediate) {
            delay(100)
            resumedOn.complete(Thread.currentThread())
        }
        pump.runUntilIdle()
        val next = MessagePump.start("main-contract-next")
        try {
            MainPump.install(next)
            pump.advanceTimeBy(Duration.ofMillis(100)) // the old pump's timer fires here, on the test thread
            assertSame(next.thread, resumedOn.get(TEST_WAIT.inWholeSeconds, TimeUnit.SECONDS),
                "Dispatchers.Main.immediate now means the new pump")
        } finally {
            MainPump.uninstall(next)
            next.shutdownAndWait()
        }
    }

    /**
     * The same when the replaced pump shuts down before the delay is due: the delay is Main's, and
     * Main is the new pump now, so the rest of its time runs on the new pump's timers and it resumes
     * there, not before it is due. It was cancelled with the old pump's PumpShutdownException once
     * (its abandoned timer cancelled it without asking which pump Main is), and then resumed at once.
     */
    @Test
    fun `a delay whose pump was replaced and then shut down resumes on the pump installed now, when it is due`() {
        MainPump.install(pump)
        val resumedOn = CompletableFuture<Thread>()
        val scope = kotlinx.coroutines.CoroutineScope(kotlinx.coroutines.Job())
        scope.launch(Dispatchers.Main.immediate) {
            try {
                delay(60_000)
                resumedOn.complete(Thread.currentThread())
            } catch (e: Throwable) {
                resumedOn.completeExceptionally(e)
                throw e
            }
        }
        pump.runUntilIdle()
        pump.advanceTimeBy(Duration.ofMillis(10_000))
        val next = ManualPump.create("main-contract-next")
        try {
            MainPump.install(next)
            pump.shutdownNow()
            pump.runUntilIdle() // the old pump terminates: its timer is abandoned, 50 s before it was due
            next.runUntilIdle()
            next.advanceTimeBy(Duration.ofMillis(49_999))
            assertFalse(resumedOn.isDone, "resumed before its time: $resumedOn")
            next.advanceTimeBy(Duration.ofMillis(1))
            assertSame(Thread.currentThread(), resumedOn.getNow(null), "resumed on the new pump (the test thread drives it)")
        } finally {
            scope.cancel()
            MainPump.uninstall(next)
            next.shutdownNow()
            next.runUntilIdle()
        }
    }

    /** Cancelled after its timer moved to the new pump: the new pump's timer is cancelled, nothing resumes. */
    @Test
    fun `a moved delay that is cancelled leaves no timer on the new pump`() {
        MainPump.install(pump)
        val scope = kotlinx.coroutines.CoroutineScope(kotlinx.coroutines.Job())
        var resumed = false
        val job = scope.launch(Dispatchers.Main.immediate) {
            delay(60_000)
            resumed = true
        }
        pump.runUntilIdle()
        val next = ManualPump.create("main-contract-moved")
        try {
            MainPump.install(next)
            pump.shutdownNow()
            pump.runUntilIdle()
            next.runUntilIdle()
            assertEquals(1, next.metrics.pendingTimers(), "the rest of the delay on the new pump")
            job.cancel()
            next.runUntilIdle()
            assertEquals(0, next.metrics.pendingTimers())
            next.advanceTimeBy(Duration.ofMillis(60_000))
            assertFalse(resumed)
            assertTrue(job.isCancelled)
        } finally {
            scope.cancel()
            MainPump.uninstall(next)
            next.shutdownNow()
            next.runUntilIdle()
        }
    }

    private fun costOfOneDelay(dispatcher: CoroutineDispatcher): Pair<Long, Long> = costOfOneDelay(pump, dispatcher)

    private fun orderAfterDelay(dispatcher: CoroutineDispatcher): List<String> = orderAfterDelay(pump, dispatcher)

    /** Runs [body] on a thread of its own and returns its result (bounded wait). */
    private fun <T> runOnOtherThread(body: () -> T): T {
        var result: Result<T>? = null
        val t = Thread({ result = runCatching(body) }, "off-pump")
        t.start()
        t.joinBounded()
        return result!!.getOrThrow()
    }

    companion object {
        val EXPECTED_AFTER_DELAY = listOf("sending", "received", "sent")

        /**
         * A coroutine on [dispatcher] starts a receiver, delays, then sends to it: resumed without a
         * dispatch, its `send` hands over to the receiver at once (an immediate dispatcher on its own
         * thread), before the sender goes on.
         */
        fun orderAfterDelay(pump: ManualPump, dispatcher: CoroutineDispatcher): List<String> {
            val order = mutableListOf<String>()
            pump.scope.launch(dispatcher) {
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
            pump.runUntilIdle()
            pump.advanceTimeBy(Duration.ofMillis(100))
            return order
        }

        /**
         * Delays once in a coroutine on [dispatcher] (backed by [pump]) and returns what the resumption
         * cost the pump: (tasks run, timers fired) between the delay's start and the coroutine's end.
         */
        fun costOfOneDelay(pump: ManualPump, dispatcher: CoroutineDispatcher): Pair<Long, Long> {
            var resumedOnPump = false
            pump.scope.launch(dispatcher) {
                delay(100)
                resumedOnPump = pump.isCurrentThread
            }
            pump.runUntilIdle()
            val before = pump.metrics
            pump.advanceTimeBy(Duration.ofMillis(100))
            val after = pump.metrics
            check(resumedOnPump) { "the coroutine did not resume on the pump after its delay" }
            return (after.dispatches() - before.dispatches()) to (after.timersFired() - before.timersFired())
        }
    }
}
