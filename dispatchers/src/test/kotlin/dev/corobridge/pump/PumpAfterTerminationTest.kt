package dev.corobridge.pump

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.cancel
import kotlinx.coroutines.delay
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.RejectedExecutionException
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNotSame
import kotlin.test.assertSame
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * What happens to coroutines that use a pump's dispatcher after the pump has terminated: they are
 * cancelled with [PumpShutdownException] and finish on the fallback executor (`Dispatchers.IO`),
 * never on the dead pump thread, and nothing hangs.
 */
@OptIn(DelicateCoroutinesApi::class) // CoroutineStart.ATOMIC: run a body even though it is cancelled
class PumpAfterTerminationTest {
    private val pump = MessagePump.start("dead-ui")
    private val pumpThread: Thread = pump.thread
    private val foreignScope = CoroutineScope(SupervisorJob())

    @AfterEach
    fun tearDown() {
        foreignScope.cancel()
        pump.shutdownAndWait()
    }

    private fun terminate() {
        val report = pump.shutdownAndWait()
        assertTrue(report.isClean(), report.toString())
        assertTrue(pump.isTerminated)
        pumpThread.joinBounded() // the loop returned and its thread is gone
    }

    @Test
    fun `withContext on a terminated pump throws PumpShutdownException at the caller`() = pumpTest {
        terminate()
        val ran = AtomicBoolean()
        val caller = Thread.currentThread()
        val e = assertFailsWith<PumpShutdownException> {
            withContext(pump.dispatcher) { ran.set(true) }
        }
        assertEquals("dead-ui", e.pumpName())
        assertFalse(ran.get(), "the block must not run: its coroutine was cancelled before it started")
        assertSame(caller, Thread.currentThread())
        // A CancellationException subtype, as the docs promise; the caller's own job is untouched.
        assertIs<java.util.concurrent.CancellationException>(e)
        assertTrue(coroutineContext.isActive)
        // The immediate view behaves the same off the pump thread.
        assertFailsWith<PumpShutdownException> { withContext(pump.dispatcher.immediate) { ran.set(true) } }
        assertFalse(ran.get())
        // And the Java faces refuse rather than drop.
        assertFailsWith<RejectedExecutionException> { pump.execute { ran.set(true) } }
        assertFailsWith<RejectedExecutionException> { pump.execute { ran.set(true) } }
    }

    @Test
    fun `a coroutine launched with the dispatcher after termination is cancelled on the fallback`() = pumpTest {
        terminate()
        // Default start: the body never runs; the job ends cancelled with PumpShutdownException.
        val ran = AtomicBoolean()
        val cause = CompletableDeferred<Throwable?>()
        val completedOn = CompletableDeferred<Thread>()
        val job = foreignScope.launch(pump.dispatcher) { ran.set(true) }
        job.invokeOnCompletion { c ->
            completedOn.complete(Thread.currentThread())
            cause.complete(c)
        }
        job.join()
        assertFalse(ran.get())
        assertTrue(job.isCancelled)
        assertIs<PumpShutdownException>(cause.await())
        assertNotSame(pumpThread, completedOn.await())

        // ATOMIC start: the body does run, but on the fallback, already cancelled; its next
        // suspension throws PumpShutdownException and its finally runs on the fallback too.
        val bodyThread = CompletableDeferred<Thread>()
        val finallyThread = CompletableDeferred<Thread>()
        val thrown = CompletableDeferred<Throwable>()
        val atomic = foreignScope.launch(pump.dispatcher, start = CoroutineStart.ATOMIC) {
            bodyThread.complete(Thread.currentThread())
            try {
                delay(10)
            } catch (e: Throwable) {
                thrown.complete(e)
                throw e
            } finally {
                finallyThread.complete(Thread.currentThread())
            }
        }
        atomic.join()
        assertTrue(atomic.isCancelled)
        assertIs<PumpShutdownException>(thrown.await())
        for (t in listOf(bodyThread.await(), finallyThread.await())) {
            assertNotSame(pumpThread, t)
            assertTrue(t.isKotlinxWorker(), "expected a Dispatchers.IO thread, was ${t.name}")
        }
    }

    @Test
    fun `a coroutine suspended on the pump when it terminates is resumed on the fallback, cancelled`() = pumpTest {
        val gate = CompletableDeferred<Unit>()
        val started = CompletableDeferred<Unit>()
        val thrown = CompletableDeferred<Throwable?>()
        val finallyThread = CompletableDeferred<Thread>()
        val job = foreignScope.launch(pump.dispatcher) {
            started.complete(Unit)
            try {
                gate.await()
                thrown.complete(null)
            } catch (e: Throwable) {
                thrown.complete(e)
                throw e
            } finally {
                finallyThread.complete(Thread.currentThread())
            }
        }
        started.await()
        terminate() // not in pump.scope: shutdown neither cancels nor waits for it
        assertTrue(job.isActive)
        gate.complete(Unit) // its resumption can no longer reach the pump
        assertIs<PumpShutdownException>(thrown.await())
        val t = finallyThread.await()
        assertNotSame(pumpThread, t)
        assertTrue(t.isKotlinxWorker(), "expected a Dispatchers.IO thread, was ${t.name}")
        job.join()
        assertTrue(job.isCancelled)
    }

    @Test
    fun `a coroutine in delay on the pump when it terminates is cancelled and finishes on the fallback`() = pumpTest {
        val inDelay = CompletableDeferred<Unit>()
        val thrown = CompletableDeferred<Throwable?>()
        val finallyThread = CompletableDeferred<Thread>()
        val scope = CoroutineScope(pump.dispatcher) // a scope of its own, not pump.scope
        val job = scope.launch {
            inDelay.complete(Unit)
            try {
                delay(600_000)
                thrown.complete(null)
            } catch (e: Throwable) {
                thrown.complete(e)
                throw e
            } finally {
                finallyThread.complete(Thread.currentThread())
            }
        }
        inDelay.await()
        withContext(pump.dispatcher) { } // the task that called delay() has returned
        assertEquals(1, pump.metrics.pendingTimers())
        terminate() // coroutine timers are not counted as abandoned: the report stays clean
        assertIs<PumpShutdownException>(thrown.await())
        val t = finallyThread.await()
        assertNotSame(pumpThread, t)
        assertTrue(t.isKotlinxWorker(), "expected a Dispatchers.IO thread, was ${t.name}")
        job.join()
        assertTrue(job.isCancelled)
        assertEquals(0, pump.metrics.pendingTimers())
    }

    @Test
    fun `a withTimeout pending on a pump that terminates still fires, via the fallback`() = pumpTest {
        val timeoutMs = 1_000L
        val entered = CompletableDeferred<Unit>()
        val outcome = CompletableDeferred<Throwable?>()
        val caughtOn = CompletableDeferred<Thread>()
        val before = System.nanoTime()
        val job = foreignScope.launch(pump.dispatcher) {
            try {
                withTimeout(timeoutMs) {
                    entered.complete(Unit)
                    CompletableDeferred<Unit>().await() // never completes: only the timeout ends this
                }
                outcome.complete(null)
            } catch (e: Throwable) {
                caughtOn.complete(Thread.currentThread())
                outcome.complete(e)
            }
        }
        entered.await()
        terminate()
        val e = outcome.await() // bounded by pumpTest
        val elapsed = System.nanoTime() - before
        assertIs<TimeoutCancellationException>(e)
        assertTrue(elapsed >= TimeUnit.MILLISECONDS.toNanos(timeoutMs), "fired early, after $elapsed ns")
        val t = caughtOn.await()
        assertNotSame(pumpThread, t)
        assertTrue(t.isKotlinxWorker(), "expected a kotlinx worker thread, was ${t.name}")
        job.join()
    }

    @Test
    fun `a withTimeout set up on a terminated pump never fires before its deadline`() = pumpTest {
        terminate()
        // The timeout goes straight to the fallback timer. Several short runs, so that the
        // sub-millisecond remainder of the deadline varies: none may fire early.
        repeat(20) { i ->
            val timeoutMs = 2L + i % 3
            val elapsed = CompletableDeferred<Long>()
            val outcome = CompletableDeferred<Throwable?>()
            foreignScope.launch(pump.dispatcher, start = CoroutineStart.UNDISPATCHED) {
                val start = System.nanoTime() // before withTimeout computes its deadline
                try {
                    withTimeout(timeoutMs) { CompletableDeferred<Unit>().await() }
                    outcome.complete(null)
                } catch (e: Throwable) {
                    elapsed.complete(System.nanoTime() - start)
                    outcome.complete(e)
                }
            }
            assertIs<TimeoutCancellationException>(outcome.await())
            val took = elapsed.await()
            assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(timeoutMs),
                "run $i: withTimeout($timeoutMs) fired after only $took ns")
        }
    }

    @Test
    fun `an effectively infinite withTimeout does not fire when it moves to the fallback`() = pumpTest {
        // withTimeout(Long.MAX_VALUE) (also what withTimeout(Duration.INFINITE) becomes) means "no
        // timeout": kotlinx's own timer ignores such deadlines. One is pending when the pump
        // terminates, one is set up after; a short reference timeout set up last must fire first.
        val pendingAtTermination = CompletableDeferred<Throwable?>()
        val entered = CompletableDeferred<Unit>()
        foreignScope.launch(pump.dispatcher) {
            try {
                withTimeout(Long.MAX_VALUE) {
                    entered.complete(Unit)
                    CompletableDeferred<Unit>().await()
                }
                pendingAtTermination.complete(null)
            } catch (e: Throwable) {
                pendingAtTermination.complete(e)
            }
        }
        entered.await()
        terminate()
        val setUpAfter = CompletableDeferred<Throwable?>()
        foreignScope.launch(pump.dispatcher, start = CoroutineStart.UNDISPATCHED) {
            try {
                withTimeout(Long.MAX_VALUE) { CompletableDeferred<Unit>().await() }
                setUpAfter.complete(null)
            } catch (e: Throwable) {
                setUpAfter.complete(e)
            }
        }
        val reference = CompletableDeferred<Throwable?>()
        foreignScope.launch(pump.dispatcher, start = CoroutineStart.UNDISPATCHED) {
            try {
                withTimeout(50) { CompletableDeferred<Unit>().await() }
                reference.complete(null)
            } catch (e: Throwable) {
                reference.complete(e)
            }
        }
        assertIs<TimeoutCancellationException>(reference.await())
        for ((what, outcome) in listOf("pending at termination" to pendingAtTermination, "set up after" to setUpAfter)) {
            if (outcome.isCompleted) fail("infinite timeout ($what) ended: ${outcome.await()}")
        }
    }

    @Test
    fun `a delay started on a terminated pump fails at once instead of hanging`() = pumpTest {
        terminate()
        val thrown = CompletableDeferred<Throwable>()
        val job = foreignScope.launch(pump.dispatcher, start = CoroutineStart.ATOMIC) {
            try {
                delay(600_000)
            } catch (e: Throwable) {
                thrown.complete(e)
            }
        }
        assertIs<PumpShutdownException>(thrown.await())
        job.join()
        assertTrue(job.isCancelled)
    }
}
