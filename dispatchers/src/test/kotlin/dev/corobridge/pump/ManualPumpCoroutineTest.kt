package dev.corobridge.pump

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Test
import java.time.Duration
import kotlin.concurrent.thread
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNotSame
import kotlin.test.assertNull
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * Coroutines on a [ManualPump]: the test thread is the pump thread, nothing runs until the test
 * drives the pump, and delays, timeouts and the shutdown grace period all follow the manual clock.
 */
class ManualPumpCoroutineTest {

    @Test
    fun `delay resumes exactly when virtual time reaches it, on the test thread`() {
        val pump = ManualPump.create("manual-ui")
        val me = Thread.currentThread()
        var started = false
        var resumedOn: Thread? = null
        var resumedAtNanos = -1L
        val job = pump.scope.launch {
            started = true
            delay(5_000)
            resumedOn = Thread.currentThread()
            resumedAtNanos = pump.currentTimeNanos
        }
        assertFalse(started, "nothing runs until the test drives the pump")
        pump.runUntilIdle()
        assertTrue(started)
        assertEquals(1, pump.metrics.pendingTimers())

        pump.advanceTimeBy(Duration.ofMillis(4_999))
        assertNull(resumedOn)
        assertTrue(job.isActive)

        pump.advanceTimeBy(Duration.ofMillis(1))
        assertSame(me, resumedOn)
        assertEquals(Duration.ofSeconds(5).toNanos(), resumedAtNanos)
        assertTrue(job.isCompleted)
        assertEquals(0, pump.metrics.pendingTimers())
        finish(pump)
    }

    @Test
    fun `delays resume in due order, ties in scheduling order`() {
        val pump = ManualPump.create("manual-ui")
        val order = mutableListOf<String>()
        for ((name, ms) in listOf("c" to 60L, "a" to 20L, "b1" to 40L, "b2" to 40L)) {
            pump.scope.launch {
                delay(ms)
                order += "$name@${pump.currentTimeNanos / 1_000_000}"
            }
        }
        pump.advanceUntilIdle()
        assertEquals(listOf("a@20", "b1@40", "b2@40", "c@60"), order)
        finish(pump)
    }

    @Test
    fun `work launched from another thread runs on the test thread when the test drives the pump`() {
        val pump = ManualPump.create("manual-ui")
        val me = Thread.currentThread()
        var ranOn: Thread? = null
        var launcher: Thread? = null
        thread(name = "launcher") {
            launcher = Thread.currentThread()
            pump.scope.launch { ranOn = Thread.currentThread() }
        }.join(TEST_WAIT.inWholeMilliseconds)
        assertNull(ranOn)
        pump.runUntilIdle()
        assertSame(me, ranOn)
        assertNotSame(launcher, ranOn)
        finish(pump)
    }

    @Test
    fun `withTimeout fires only when virtual time passes its deadline`() {
        val pump = ManualPump.create("manual-ui")
        val me = Thread.currentThread()
        var outcome: Throwable? = null
        var caughtOn: Thread? = null
        pump.scope.launch {
            try {
                withTimeout(1_000) { awaitCancellation() }
            } catch (e: TimeoutCancellationException) {
                outcome = e
                caughtOn = Thread.currentThread()
            }
        }
        pump.runUntilIdle()
        assertNull(outcome)
        pump.advanceTimeBy(Duration.ofMillis(999))
        assertNull(outcome, "fired before its virtual deadline")
        pump.advanceTimeBy(Duration.ofMillis(1))
        assertIs<TimeoutCancellationException>(outcome)
        assertSame(me, caughtOn)

        // One that completes in time: its timer is gone and never fires.
        val answer = CompletableDeferred<Int>()
        var result: Int? = null
        var failed: Throwable? = null
        pump.scope.launch {
            try {
                result = withTimeout(1_000) { answer.await() }
            } catch (e: Throwable) {
                failed = e
            }
        }
        pump.runUntilIdle()
        assertEquals(1, pump.metrics.pendingTimers())
        answer.complete(7)
        pump.runUntilIdle()
        assertEquals(7, result)
        assertEquals(0, pump.metrics.pendingTimers())
        pump.advanceTimeBy(Duration.ofSeconds(10))
        assertNull(failed)
        finish(pump)
    }

    @Test
    fun `shutdown runs cleanup when the test drives the pump, suspending cleanup in virtual time`() {
        val pump = ManualPump.create("manual-ui")
        val log = mutableListOf<String>()
        repeat(3) { i ->
            pump.scope.launch {
                try {
                    awaitCancellation()
                } finally {
                    check(pump.isCurrentThread)
                    log += "finally-$i"
                }
            }
        }
        pump.scope.launch {
            try {
                awaitCancellation()
            } finally {
                withContext(NonCancellable) {
                    delay(100)
                    log += "slow-cleanup"
                }
            }
        }
        pump.runUntilIdle()
        assertEquals(4, pump.metrics.liveChildren())

        val report = pump.shutdown(Duration.ofSeconds(10))
        assertFalse(report.isDone)
        assertTrue(log.isEmpty(), "phase 1 runs only when the test drives the pump")

        pump.runUntilIdle()
        assertEquals(listOf("finally-0", "finally-1", "finally-2"), log)
        assertFalse(report.isDone, "the slow cleanup is still waiting for virtual time")
        assertEquals(1, pump.metrics.liveChildren())

        pump.advanceTimeBy(Duration.ofMillis(99))
        assertFalse(report.isDone)
        pump.advanceTimeBy(Duration.ofMillis(1))
        assertEquals(listOf("finally-0", "finally-1", "finally-2", "slow-cleanup"), log)
        assertTrue(report.isDone)
        val r = report.getNow(null)
        assertTrue(r.isClean(), r.toString())
        assertEquals(Duration.ofMillis(100), r.took())
        assertTrue(pump.isTerminated)
        assertEquals(0, pump.metrics.liveChildren())
    }

    @Test
    fun `a child stuck in NonCancellable cleanup is abandoned exactly when the grace period passes`() {
        val pump = ManualPump.create("manual-ui")
        val never = CompletableDeferred<Unit>()
        var cleanupStarted = false
        val stuck = pump.scope.launch(CoroutineName("stuck-child")) {
            try {
                awaitCancellation()
            } finally {
                withContext(NonCancellable) {
                    cleanupStarted = true
                    never.await()
                }
            }
        }
        pump.runUntilIdle()
        val report = pump.shutdown(Duration.ofSeconds(10))
        pump.runUntilIdle()
        assertTrue(cleanupStarted)
        assertFalse(report.isDone)

        pump.advanceTimeBy(Duration.ofMillis(9_999))
        assertFalse(report.isDone, "terminated before the grace period passed")
        assertFalse(pump.isTerminated)

        pump.advanceTimeBy(Duration.ofMillis(1))
        assertTrue(report.isDone)
        assertTrue(pump.isTerminated)
        val r = report.getNow(null)
        assertFalse(r.graceful(), r.toString())
        assertEquals(1, r.abandonedCoroutines().size, r.toString())
        assertEquals(stuck.toString().substringAfterLast('@'), r.abandonedCoroutines().single().substringAfterLast('@'))
        assertEquals(Duration.ofSeconds(10), r.took())

        // Released after termination, it finishes on the fallback executor, not on this thread.
        val finishedOn = CompletableDeferred<Thread>()
        stuck.invokeOnCompletion { finishedOn.complete(Thread.currentThread()) }
        never.complete(Unit)
        pumpTest {
            stuck.join()
            val t = finishedOn.await()
            assertTrue(t.isKotlinxWorker(), t.name)
        }
    }

    private fun finish(pump: ManualPump) {
        val report = pump.shutdown(Duration.ofSeconds(10))
        pump.runUntilIdle()
        assertTrue(report.isDone)
        assertTrue(report.getNow(null).isClean(), report.getNow(null).toString())
    }
}

class ImmediateAfterTerminationTest {
    @org.junit.jupiter.api.Test
    fun `immediate on the former pump thread dispatches once terminated`() {
        val ui = ManualPump.create("immediate-after")
        kotlin.test.assertFalse(ui.dispatcher.immediate.isDispatchNeeded(kotlin.coroutines.EmptyCoroutineContext))
        ui.shutdown(java.time.Duration.ZERO)
        ui.runUntilIdle()
        kotlin.test.assertTrue(ui.isTerminated)
        kotlin.test.assertTrue(ui.dispatcher.immediate.isDispatchNeeded(kotlin.coroutines.EmptyCoroutineContext))
    }
}
