package dev.corobridge.pump

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.Deferred
import kotlinx.coroutines.Delay
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.Job
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.asExecutor
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancel
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.delay
import kotlinx.coroutines.future.await
import kotlinx.coroutines.joinAll
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.withTimeoutOrNull
import kotlinx.coroutines.yield
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.Collections
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.coroutines.EmptyCoroutineContext
import kotlin.coroutines.coroutineContext
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNotEquals
import kotlin.test.assertNotSame
import kotlin.test.assertNull
import kotlin.test.assertSame
import kotlin.test.assertTrue

/** [PumpDispatcher]: where coroutines run, when they run, delays and timeouts, the Executor face. */
class PumpDispatcherTest {
    private val pump = MessagePump.start("pd-ui")
    private val pumpThread: Thread = pump.thread

    @AfterEach
    fun tearDown() {
        pump.shutdownAndWait()
    }

    @Test
    fun `withContext runs the block on the pump thread and returns to the caller`() = pumpTest {
        val caller = Thread.currentThread()
        val inside = withContext(pump.dispatcher) {
            assertTrue(pump.isCurrentThread)
            pump.checkAccess()
            Thread.currentThread()
        }
        assertSame(pumpThread, inside)
        assertTrue(inside.name.startsWith("pd-ui"), inside.name)
        assertSame(caller, Thread.currentThread())
    }

    /**
     * A coroutine of the pump's scope that fails goes to the pump's uncaught-exception handler, as
     * a posted task that throws does (it went to the thread's default handler: stderr); one with
     * a CoroutineExceptionHandler of its own goes there only, and a cancellation is no failure.
     */
    @Test
    fun `a failing coroutine of the pump's scope reaches the pump's uncaught-exception handler`() {
        val seen = Collections.synchronizedList(mutableListOf<Pair<String, Throwable>>())
        val p = MessagePump.start(PumpConfig.builder("pd-failing")
            .uncaughtExceptionHandler { t, e -> seen += t.name to e }
            .build())
        try {
            val boom = IllegalStateException("boom")
            val own = CompletableFuture<Throwable>()
            val ownBoom = IllegalStateException("own")
            val failed = p.scope.launch { throw boom }
            val handled = p.scope.launch(kotlinx.coroutines.CoroutineExceptionHandler { _, e -> own.complete(e) }) { throw ownBoom }
            val cancelled = p.scope.launch { awaitCancellation() }
            kotlinx.coroutines.runBlocking {
                cancelled.cancelAndJoin()
                joinAll(failed, handled)
            }
            assertSame(ownBoom, own.get(30, TimeUnit.SECONDS))
            val after = CompletableFuture<Unit>()
            p.execute { after.complete(Unit) } // runs after the failures' completions on the pump
            after.get(30, TimeUnit.SECONDS)
            assertEquals(listOf("pd-failing" to boom as Throwable), seen.toList().map { it.first.substringBefore(" @") to it.second })
        } finally {
            p.shutdownAndWait()
        }
    }

    /** A deliberately deep stack of ordinary frames, so a recursive (inline) run would be visible. */
    private fun <T> nestedFrames(depth: Int, action: () -> T): T =
        if (depth == 0) action() else nestedFrames(depth - 1, action)

    @Test
    fun `launch from a pump task runs after that task returns, on a clean stack`() = pumpTest {
        val order = Collections.synchronizedList(mutableListOf<String>())
        val childStack = CompletableDeferred<Array<StackTraceElement>>()
        val childThread = CompletableDeferred<Thread>()
        val launcherDepth = CompletableDeferred<Int>()
        val scope = CoroutineScope(Job() + pump.dispatcher)
        try {
            pump.execute(Runnable {
                nestedFrames(200) {
                    order += "task: before launch"
                    scope.launch {
                        order += "child"
                        childThread.complete(Thread.currentThread())
                        childStack.complete(Thread.currentThread().stackTrace)
                    }
                    order += "task: after launch"
                    launcherDepth.complete(Thread.currentThread().stackTrace.size)
                }
                order += "task: returning"
            })
            val stack = childStack.await()
            assertEquals(listOf("task: before launch", "task: after launch", "task: returning", "child"), order.toList())
            assertSame(pumpThread, childThread.await())
            assertTrue(stack.none { it.methodName.startsWith("nestedFrames") },
                "the child ran on the launching task's stack:\n" + stack.joinToString("\n"))
            assertTrue(stack.size < launcherDepth.await() - 150,
                "child stack depth ${stack.size} vs launcher depth ${launcherDepth.await()}")
        } finally {
            scope.cancel()
        }
    }

    @Test
    fun `launch inside a coroutine on the pump is queued behind the running coroutine`() = pumpTest {
        val order = mutableListOf<String>() // pump-confined
        withContext(pump.dispatcher) {
            val seq = pump.taskSequence()
            order += "parent: before"
            val child = launch {
                assertTrue(pump.isCurrentThread)
                assertNotEquals(seq, pump.taskSequence(), "the child ran inside the parent's task")
                order += "child"
            }
            order += "parent: after launch"
            yield() // gives the pump back: the child (queued first) runs now
            order += "parent: after yield"
            child.join()
        }
        assertEquals(listOf("parent: before", "parent: after launch", "child", "parent: after yield"), order)
    }

    @Test
    fun `isDispatchNeeded is always true for the dispatcher, and false for immediate only on the pump`() = pumpTest {
        val dispatcher = pump.dispatcher
        assertTrue(dispatcher.isDispatchNeeded(EmptyCoroutineContext))
        assertTrue(dispatcher.immediate.isDispatchNeeded(EmptyCoroutineContext))
        withContext(pump.dispatcher) {
            assertTrue(dispatcher.isDispatchNeeded(coroutineContext), "dispatcher on the pump thread")
            assertFalse(dispatcher.immediate.isDispatchNeeded(coroutineContext), "immediate on the pump thread")
        }
        // The same from a plain posted Java task (no coroutine machinery around it).
        val onPump = CompletableFuture<Pair<Boolean, Boolean>>()
        pump.execute {
            onPump.complete(dispatcher.isDispatchNeeded(EmptyCoroutineContext) to
                dispatcher.immediate.isDispatchNeeded(EmptyCoroutineContext))
        }
        assertEquals(true to false, onPump.await())
    }

    @Test
    fun `immediate runs inline on the pump thread`() = pumpTest {
        withContext(pump.dispatcher) {
            val order = mutableListOf<Int>()
            val seq = pump.taskSequence()
            order += 1
            val job = launch(pump.dispatcher.immediate) {
                assertEquals(seq, pump.taskSequence(), "immediate child should run inside the current task")
                order += 2
            }
            order += 3
            job.join()
            assertEquals(listOf(1, 2, 3), order)

            // Contrast: the plain dispatcher queues the same launch.
            order.clear()
            order += 1
            val queued = launch(pump.dispatcher) { order += 3 }
            order += 2
            queued.join()
            assertEquals(listOf(1, 2, 3), order)

            // withContext(immediate) from the pump thread: same task, no trip through the queue.
            val outerSeq = pump.taskSequence()
            val innerSeq = withContext(pump.dispatcher.immediate) {
                assertTrue(pump.isCurrentThread)
                pump.taskSequence()
            }
            assertEquals(outerSeq, innerSeq)
        }
    }

    @Test
    fun `immediate dispatches when called off the pump thread`() = pumpTest {
        // Off the pump: runs on the pump, not on the caller.
        withContext(Dispatchers.Default) {
            val caller = Thread.currentThread()
            val inside = withContext(pump.dispatcher.immediate) { Thread.currentThread() }
            assertSame(pumpThread, inside)
            assertNotSame(caller, inside)
        }
        // And it is really queued: while the pump is busy, the launched coroutine cannot have run
        // (an inline run on the caller would set the flag before launch returns).
        val release = CountDownLatch(1)
        val blocking = CompletableDeferred<Unit>()
        pump.execute {
            blocking.complete(Unit)
            release.await(TEST_WAIT.inWholeSeconds, TimeUnit.SECONDS)
        }
        blocking.await()
        val ran = AtomicBoolean()
        val ranOn = CompletableDeferred<Thread>()
        val scope = CoroutineScope(Job())
        val job = scope.launch(pump.dispatcher.immediate) {
            ran.set(true)
            ranOn.complete(Thread.currentThread())
        }
        assertFalse(ran.get(), "immediate ran inline off the pump thread")
        release.countDown()
        job.join()
        assertSame(pumpThread, ranOn.await())
    }

    @Test
    fun `a chain of 100_000 immediate resumptions does not overflow the stack`() = pumpTest {
        val n = 100_000
        var maxDepth = 0 // pump-confined
        val result = withContext(pump.dispatcher) {
            run {
                val first = CompletableDeferred<Int>()
                var prev: Deferred<Int> = first
                repeat(n) { i ->
                    val p = prev
                    // Each coroutine starts inline (immediate, on the pump) and suspends on the previous one.
                    prev = async(pump.dispatcher.immediate) {
                        val v = p.await()
                        if (i % 5_000 == 0) {
                            maxDepth = maxOf(maxDepth, Thread.currentThread().stackTrace.size)
                        }
                        check(pump.isCurrentThread)
                        v + 1
                    }
                }
                // Completing the head resumes all n coroutines inline, one after another.
                val seq = pump.taskSequence()
                first.complete(0)
                assertTrue(prev.isCompleted, "the chain should have run inline within the completing task")
                assertEquals(seq, pump.taskSequence())
                prev.await()
            }
        }
        assertEquals(n, result)
        assertTrue(maxDepth in 1..1_000, "stack depth grew with the chain: $maxDepth")
    }

    @Test
    fun `equals and hashCode are stable per pump and view`() {
        val other = MessagePump.start("pd-other")
        try {
            val d = pump.dispatcher
            assertSame(d, pump.dispatcher)
            assertEquals(d, pump.dispatcher)
            assertEquals(d.hashCode(), pump.dispatcher.hashCode())
            assertNotEquals<Any>(d, other.dispatcher)
            assertNotEquals<Any>(d.immediate, other.dispatcher.immediate)
            assertNotEquals<Any>(d, d.immediate)
            assertNotEquals<Any>(d.immediate, d)
            assertEquals(d.immediate, d.immediate)
            assertEquals(d.immediate.hashCode(), d.immediate.hashCode())
            assertSame(d.immediate, d.immediate.immediate)
            assertSame(pump, d.pump)
            assertSame(pump, d.immediate.pump)
            // A second instance for the same pump compares equal (equality is by pump and view, not identity).
            val twin = PumpDispatcher(pump, false)
            assertEquals(d, twin)
            assertEquals(d.hashCode(), twin.hashCode())
            assertEquals(d.immediate, PumpDispatcher(pump, true))
            assertEquals(d.immediate.hashCode(), PumpDispatcher(pump, true).hashCode())
            assertNotEquals<Any>(twin, other.dispatcher)
            assertEquals(setOf<Any>(d, d.immediate, other.dispatcher), setOf<Any>(twin, pump.dispatcher.immediate, other.dispatcher))
            pumpTest {
                // Consequence: withContext to an equal dispatcher is no switch (runs in the same task).
                withContext(pump.dispatcher) {
                    val seq = pump.taskSequence()
                    assertEquals(seq, withContext(twin) { pump.taskSequence() })
                    assertEquals(seq, withContext(pump.dispatcher) { pump.taskSequence() })
                }
            }
        } finally {
            other.shutdownAndWait()
        }
    }

    @Test
    fun `delay resumes on the pump after at least the delay`() = pumpTest {
        withContext(pump.dispatcher) {
            val start = System.nanoTime()
            delay(50)
            val elapsed = System.nanoTime() - start
            assertTrue(pump.isCurrentThread)
            assertTrue(elapsed >= TimeUnit.MILLISECONDS.toNanos(50), "resumed after only $elapsed ns")
        }
        // Several delays at once: each resumes on the pump, none before its delay. (Their
        // relative order is checked in virtual time, in ManualPumpCoroutineTest.)
        coroutineScope {
            listOf(30L, 10L, 20L).map { ms ->
                launch(pump.dispatcher) {
                    val start = System.nanoTime()
                    delay(ms)
                    check(pump.isCurrentThread)
                    check(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(ms))
                }
            }.joinAll()
        }
    }

    @Test
    fun `a cancelled delay leaves no pending timer`() = pumpTest {
        val inDelay = CompletableDeferred<Unit>()
        val job = launch(pump.dispatcher) {
            inDelay.complete(Unit)
            delay(600_000)
        }
        inDelay.await()
        // The timer is scheduled later in the task that completed inDelay: a round trip through
        // the pump's FIFO queue runs after that task has returned.
        withContext(pump.dispatcher) { }
        assertEquals(1, pump.metrics.pendingTimers())
        job.cancelAndJoin()
        assertEquals(0, pump.metrics.pendingTimers())
    }

    @Test
    fun `withTimeout on the pump throws TimeoutCancellationException and resumes on the pump`() = pumpTest {
        withContext(pump.dispatcher) {
            var finallyThread: Thread? = null
            val e = assertFailsWith<TimeoutCancellationException> {
                withTimeout(50) {
                    try {
                        awaitCancellation()
                    } finally {
                        finallyThread = Thread.currentThread()
                    }
                }
            }
            assertTrue(e.message!!.contains("50"), e.message)
            assertTrue(pump.isCurrentThread, "resumed on ${Thread.currentThread().name}")
            assertSame(pumpThread, finallyThread)
            assertNull(withTimeoutOrNull(20) { CompletableDeferred<Unit>().await() })
            assertTrue(pump.isCurrentThread)
        }
        assertEquals(0, pump.metrics.pendingTimers())
    }

    @OptIn(InternalCoroutinesApi::class)
    @Test
    fun `timeouts that do not fire leave no pending timer`() = pumpTest {
        // On the pump thread: the timer goes straight into the heap and is cancelled there.
        withContext(pump.dispatcher) {
            repeat(2_000) { i ->
                val r = withTimeout(600_000) {
                    yield() // really suspend, so the timeout is live across a dispatch
                    i
                }
                assertEquals(i, r)
            }
        }
        assertEquals(0, pump.metrics.pendingTimers())

        // Set up off the pump thread (UNDISPATCHED start): the timer travels through the queue and
        // is usually cancelled before, or soon after, it reaches the heap.
        val scope = CoroutineScope(Job() + pump.dispatcher)
        val jobs = (0 until 1_000).map {
            scope.launch(start = CoroutineStart.UNDISPATCHED) {
                withTimeout(600_000) { yield() }
            }
        }
        jobs.joinAll()
        assertEquals(0, pump.metrics.pendingTimers())

        // Straight through the Delay interface, from this thread.
        val delay = pump.dispatcher as Delay
        repeat(100) {
            delay.invokeOnTimeout(600_000, { error("must not fire") }, coroutineContext).dispose()
        }
        // Flush the queued heap insertions, then look again.
        withContext(pump.dispatcher) { }
        assertEquals(0, pump.metrics.pendingTimers())
        assertEquals(0, pump.metrics.taskFailures())
        scope.cancel()
    }

    @Test
    fun `the Executor face runs CompletableFuture stages on the pump`() = pumpTest {
        val t = CompletableFuture.supplyAsync({ Thread.currentThread() }, pump).get(30, TimeUnit.SECONDS)
        assertSame(pumpThread, t)
        val chained = CompletableFuture.supplyAsync({ 20 }, Dispatchers.Default.asExecutor())
            .thenApplyAsync({ v -> check(pump.isCurrentThread); v + 1 }, pump)
            .thenApplyAsync({ v -> v * 2 }, pump)
        assertEquals(42, chained.await())
    }

    @Test
    fun `an exception thrown on the pump surfaces at the caller and the pump keeps running`() = pumpTest {
        val caller = Thread.currentThread()
        val e = assertFailsWith<IllegalStateException> {
            withContext(pump.dispatcher) {
                check(pump.isCurrentThread)
                throw IllegalStateException("boom on the pump")
            }
        }
        assertEquals("boom on the pump", e.message)
        assertSame(caller, Thread.currentThread())
        val custom = assertFailsWith<PumpTestFailure> { withContext(pump.dispatcher) { throw PumpTestFailure("custom") } }
        assertEquals("custom", custom.message)
        // Not reported as a failed pump task: the coroutine machinery delivered it to the caller.
        assertEquals(0, pump.metrics.taskFailures())
        assertSame(pumpThread, withContext(pump.dispatcher) { Thread.currentThread() })
    }
}

internal class PumpTestFailure(message: String) : Exception(message)

