package dev.corobridge.pump

import kotlin.test.assertFailsWith
import java.util.concurrent.RejectedExecutionException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancel
import kotlinx.coroutines.delay
import kotlinx.coroutines.future.await
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.Collections
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicBoolean
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertNotSame
import kotlin.test.assertTrue

/** Two-phase shutdown of a real pump: cleanup of tracked coroutines, deadlines, shutdownNow. */
@OptIn(DelicateCoroutinesApi::class) // CoroutineStart.ATOMIC: run a body even though it is cancelled
class PumpShutdownTest {
    private val pumps = mutableListOf<MessagePump>()

    private fun startPump(name: String, configure: PumpConfig.Builder.() -> Unit = {}): MessagePump =
        MessagePump.start(PumpConfig.builder(name).apply(configure).build()).also { pumps += it }

    @AfterEach
    fun tearDown() {
        for (p in pumps) {
            p.shutdownNow().get(30, TimeUnit.SECONDS)
        }
    }

    @Test
    fun `10_000 suspended coroutines all run suspending cleanup on the pump before it terminates`() = pumpTest {
        val pump = startPump("torture-ui")
        val pumpThread = pump.thread
        val n = 10_000
        var cleanedUp = 0 // pump-confined; read after termination (happens-before via the report future)
        val started = AtomicInteger()
        val allStarted = CompletableDeferred<Unit>()
        val offPump = AtomicInteger()
        val terminated = AtomicBoolean()
        val ranAfterTermination = AtomicInteger()
        val cancelledBy = Collections.synchronizedSet(mutableSetOf<Class<*>>())
        // Runs when the pump terminates (on the pump thread, after its state became TERMINATED).
        val terminationSeen = pump.termination().thenRun { terminated.set(true) }

        fun onPumpStep() {
            if (!pump.isCurrentThread) offPump.incrementAndGet()
            if (terminated.get()) ranAfterTermination.incrementAndGet()
        }

        repeat(n) {
            pump.scope.launch {
                onPumpStep()
                if (started.incrementAndGet() == n) allStarted.complete(Unit)
                try {
                    awaitCancellation()
                } catch (e: Throwable) {
                    cancelledBy += e.javaClass
                    throw e
                } finally {
                    onPumpStep()
                    withContext(NonCancellable) {
                        delay(1)
                        onPumpStep()
                        withContext(pump.dispatcher) {
                            onPumpStep()
                            check(pump.isCurrentThread)
                            cleanedUp++
                        }
                    }
                }
            }
        }
        allStarted.await()
        assertEquals(n, pump.metrics.liveChildren())

        val report = pump.shutdown(Duration.ofSeconds(30)).await()

        assertEquals(n, cleanedUp, report.toString())
        assertTrue(report.isClean(), report.toString())
        assertTrue(report.graceful())
        assertEquals(0, report.abandonedCoroutines().size)
        assertEquals(0, pump.metrics.liveChildren())
        assertEquals(0, pump.metrics.pendingTimers())
        assertEquals(setOf<Class<*>>(PumpShutdownException::class.java), cancelledBy.toSet())
        assertEquals(0, offPump.get(), "cleanup steps ran off the pump thread")
        terminationSeen.await()
        assertTrue(terminated.get())
        pumpThread.joinBounded()
        assertEquals(0, ranAfterTermination.get(), "pump code ran after termination")
        assertFailsWith<RejectedExecutionException> { pump.execute { ranAfterTermination.incrementAndGet() } }
    }

    @Test
    fun `a child that refuses to finish makes shutdown miss its deadline and is reported`() = pumpTest {
        val pump = startPump("stuck-ui")
        val never = CompletableDeferred<Unit>()
        val started = CompletableDeferred<Unit>()
        val inCleanup = CompletableDeferred<Unit>()
        val stuck = pump.scope.launch(CoroutineName("stuck-child")) {
            try {
                started.complete(Unit)
                awaitCancellation()
            } finally {
                withContext(NonCancellable) {
                    inCleanup.complete(Unit)
                    never.await()
                }
            }
        }
        val politeCleaned = CompletableDeferred<Thread>()
        val polite = pump.scope.launch(CoroutineName("polite-child")) {
            try {
                awaitCancellation()
            } finally {
                politeCleaned.complete(Thread.currentThread())
            }
        }
        started.await()

        val report = pump.shutdown(Duration.ofMillis(300)).await()

        assertFalse(report.graceful(), report.toString())
        assertFalse(report.isClean())
        assertTrue(inCleanup.isCompleted, "phase 1 cancelled the stuck child")
        assertEquals(1, report.abandonedCoroutines().size, report.toString())
        val described = report.abandonedCoroutines().single()
        // Same job: JobSupport.toString ends with the job's identity hash.
        assertEquals(stuck.toString().substringAfterLast('@'), described.substringAfterLast('@'), described)
        if (stuck.toString().contains("stuck-child")) { // names appear in kotlinx debug mode (-ea)
            assertTrue(described.contains("stuck-child"), described)
        }
        assertTrue(polite.isCancelled && polite.isCompleted)
        assertEquals(pump.thread, politeCleaned.await())
        assertTrue(report.took() >= Duration.ofMillis(300), report.took().toString())
        assertFalse(stuck.isCompleted)

        // When it finally lets go, it finishes on the fallback executor, not on the dead pump.
        val finishedOn = CompletableDeferred<Thread>()
        stuck.invokeOnCompletion { finishedOn.complete(Thread.currentThread()) }
        never.complete(Unit)
        stuck.join()
        assertTrue(finishedOn.await().isKotlinxWorker(), finishedOn.await().name)
    }

    /**
     * A coroutine that ignores cancellation in a `delay` is listed as abandoned although the forced
     * termination abandons its timer, which cancels the delay and so sends the coroutine to the
     * fallback executor, where it may finish before the report is made. An inline fallback makes it
     * finish there at once: it was missing from the report ("0 coroutines") whenever the fallback
     * was quick enough.
     */
    @Test
    fun `a coroutine whose delay the termination abandons is listed however fast the fallback runs`() = pumpTest {
        val pump = startPump("abandoned-delay") {
            shutdownGracePeriod(Duration.ofMillis(200))
            fallbackExecutor { it.run() }
        }
        val delaying = CompletableDeferred<Unit>()
        val stubborn = pump.scope.launch(CoroutineName("stubborn-delay")) {
            withContext(NonCancellable) {
                delaying.complete(Unit)
                delay(60_000)
            }
        }
        delaying.await()

        val report = pump.shutdown().await()

        assertFalse(report.graceful(), report.toString())
        assertEquals(1, report.abandonedCoroutines().size, report.toString())
        assertEquals(stubborn.toString().substringAfterLast('@'), report.abandonedCoroutines().single().substringAfterLast('@'))
        stubborn.join() // its delay was cancelled: it finished on the fallback
    }

    @Test
    fun `shutdownNow terminates without waiting for the grace period and lists leftovers`() = pumpTest {
        // A day-long grace period: a shutdownNow that waited for it would hit the test's bound.
        val pump = startPump("now-ui") { shutdownGracePeriod(Duration.ofDays(1)) }
        val never = CompletableDeferred<Unit>()
        val started = CompletableDeferred<Unit>()
        val stuck = pump.scope.launch(CoroutineName("stuck-child")) {
            try {
                started.complete(Unit)
                awaitCancellation()
            } finally {
                withContext(NonCancellable) { never.await() }
            }
        }
        started.await()

        // Hold the pump in one task while 1,000 more tasks queue up behind it.
        val release = CountDownLatch(1)
        val holding = CompletableDeferred<Unit>()
        pump.execute {
            holding.complete(Unit)
            release.await(30, TimeUnit.SECONDS)
        }
        holding.await()
        val ran = AtomicInteger()
        val posted = List(1_000) { Runnable { ran.incrementAndGet() } }
        posted.forEach { pump.execute(it) }

        val reportFuture = pump.shutdownNow()
        release.countDown()
        val report = reportFuture.await()

        assertFalse(report.graceful(), report.toString())
        assertTrue(pump.isTerminated)
        assertEquals(1, report.abandonedCoroutines().size, report.toString())
        assertEquals(stuck.toString().substringAfterLast('@'), report.abandonedCoroutines().single().substringAfterLast('@'))
        // Every posted task either ran or is listed, exactly once: nothing silently dropped.
        assertTrue(report.abandonedTasks().isNotEmpty(), report.toString())
        val abandonedPosted = report.abandonedTasks().count { t -> posted.any { it === t } }
        assertEquals(1_000, ran.get() + abandonedPosted, "ran ${ran.get()}, abandoned $abandonedPosted")
        never.complete(Unit)
        stuck.join()
    }

    @Test
    fun `coroutine dispatches queued when a forced shutdown hits are not dropped`() = pumpTest {
        val pump = startPump("forced-ui") { shutdownGracePeriod(Duration.ofDays(1)) }
        val pumpThread = pump.thread
        val foreign = kotlinx.coroutines.CoroutineScope(kotlinx.coroutines.SupervisorJob())
        try {
            // 200 tracked children, suspended; shutdown cancels them all at once, queueing 200
            // resumptions: more than one batch, so a forced termination finds some still queued.
            val children = 200
            val childrenStarted = AtomicInteger()
            val allChildrenStarted = CompletableDeferred<Unit>()
            val cleanupThreads = Collections.synchronizedList(mutableListOf<Thread>())
            repeat(children) {
                pump.scope.launch {
                    try {
                        if (childrenStarted.incrementAndGet() == children) allChildrenStarted.complete(Unit)
                        awaitCancellation()
                    } finally {
                        cleanupThreads += Thread.currentThread()
                    }
                }
            }
            allChildrenStarted.await()

            // Hold the pump while foreign coroutines queue their first dispatch behind the holder.
            val release = CountDownLatch(1)
            val holding = CompletableDeferred<Unit>()
            pump.execute {
                holding.complete(Unit)
                release.await(30, TimeUnit.SECONDS)
            }
            holding.await()
            val ranOnPump = AtomicInteger()
            val ranElsewhere = AtomicInteger()
            val launched = List(200) {
                // launch() enqueues its dispatch before it returns.
                foreign.launch(pump.dispatcher) {
                    if (pump.isCurrentThread) ranOnPump.incrementAndGet() else ranElsewhere.incrementAndGet()
                }
            }
            // A withContext caller whose dispatch is queued (UNDISPATCHED: it runs here up to the switch).
            val caller = foreign.async(start = CoroutineStart.UNDISPATCHED) {
                runCatching { withContext(pump.dispatcher) { pump.isCurrentThread } }
            }

            val reportFuture = pump.shutdownNow()
            release.countDown()
            val report = reportFuture.await()
            assertFalse(report.graceful(), report.toString())

            // Nothing hangs: every coroutine finishes, on the pump before termination or cancelled
            // with PumpShutdownException (and resumed on the fallback) after it.
            launched.forEach { it.join() }
            assertEquals(0, ranElsewhere.get())
            assertEquals(200, ranOnPump.get() + launched.count { it.isCancelled })
            val callerOutcome = caller.await()
            assertTrue(callerOutcome.getOrNull() == true || callerOutcome.exceptionOrNull() is PumpShutdownException,
                callerOutcome.toString())
            pump.scope.coroutineContext[kotlinx.coroutines.Job]!!.join()
            assertEquals(children, cleanupThreads.size)
            assertTrue(cleanupThreads.all { it === pumpThread || it.isKotlinxWorker() }, cleanupThreads.toString())
        } finally {
            foreign.cancel()
        }
    }

    @Test
    fun `timers scheduled from off the pump just before a forced shutdown are still settled`() = pumpTest {
        val pump = startPump("forced-timers-ui") { shutdownGracePeriod(Duration.ofDays(1)) }
        val foreign = kotlinx.coroutines.CoroutineScope(kotlinx.coroutines.SupervisorJob())
        try {
            val release = CountDownLatch(1)
            val holding = CompletableDeferred<Unit>()
            pump.execute {
                holding.complete(Unit)
                release.await(30, TimeUnit.SECONDS)
            }
            holding.await()
            // Off the pump thread, a timer travels to the pump's heap as a queued task: these
            // three are queued behind the holder and 1,000 fillers (many batches) when the forced
            // shutdown hits, so the loop never gets to them.
            repeat(1_000) { pump.execute { } }
            val timeout = CompletableDeferred<Throwable?>()
            foreign.launch(pump.dispatcher, start = CoroutineStart.UNDISPATCHED) {
                timeout.complete(runCatching {
                    kotlinx.coroutines.withTimeout(200) { CompletableDeferred<Unit>().await() }
                }.exceptionOrNull())
            }
            val delayed = CompletableDeferred<Throwable?>()
            foreign.launch(pump.dispatcher, start = CoroutineStart.UNDISPATCHED) {
                delayed.complete(runCatching { delay(600_000) }.exceptionOrNull())
            }
            pump.schedule({ }, Duration.ofDays(1))
            assertEquals(3, pump.metrics.pendingTimers())

            val reportFuture = pump.shutdownNow()
            release.countDown()
            val report = reportFuture.await()
            assertFalse(report.graceful(), report.toString())
            // The postDelayed task is reported as a delayed task, not as an opaque queued task.
            assertEquals(1, report.abandonedTimers(), report.toString())
            assertEquals(0, pump.metrics.pendingTimers())
            // The timeout still fires (on the fallback), the delay is cancelled: nothing hangs.
            assertTrue(timeout.await() is kotlinx.coroutines.TimeoutCancellationException, timeout.await().toString())
            assertTrue(delayed.await() is PumpShutdownException, delayed.await().toString())
        } finally {
            foreign.cancel()
        }
    }

    @Test
    fun `a pump shut down right after start still runs its loop and shuts down gracefully`() = pumpTest {
        // start() returns before its thread has entered the loop; a shutdown in that window must
        // still go through the loop (run what was posted, clean report), not end the pump on the
        // caller as if its loop would never start.
        repeat(200) { i ->
            val pump = startPump("early-ui-$i")
            val ranOn = CompletableFuture<Thread>()
            pump.execute { ranOn.complete(Thread.currentThread()) }
            val report = pump.shutdown().await()
            assertTrue(report.isClean(), "run $i: $report")
            kotlin.test.assertSame(pump.thread, ranOn.getNow(null), "run $i: the posted task did not run on the pump")
            pump.thread.joinBounded()
        }
    }

    @Test
    fun `a coroutine launched in pump scope after termination never runs on the pump thread`() = pumpTest {
        val pump = startPump("late-ui")
        val pumpThread = pump.thread
        assertTrue(pump.shutdown().await().isClean())

        val ran = AtomicBoolean()
        val late = pump.scope.launch { ran.set(true) }
        late.join()
        assertTrue(late.isCancelled)
        assertFalse(ran.get())

        // Even a start that must run the body (ATOMIC) runs it elsewhere, already cancelled.
        val bodyThread = CompletableDeferred<Thread>()
        val atomic = pump.scope.launch(start = CoroutineStart.ATOMIC) { bodyThread.complete(Thread.currentThread()) }
        atomic.join()
        assertNotSame(pumpThread, bodyThread.await())
        assertTrue(bodyThread.await().isKotlinxWorker(), bodyThread.await().name)
        assertEquals(0, pump.metrics.liveChildren())
    }

    @Test
    fun `shutdown from the pump thread itself completes`() = pumpTest {
        val pump = startPump("self-ui")
        val cleaned = CompletableDeferred<Boolean>()
        pump.scope.launch {
            try {
                awaitCancellation()
            } finally {
                cleaned.complete(pump.isCurrentThread)
            }
        }
        val report = CompletableFuture<ShutdownReport>()
        pump.execute { pump.shutdown().whenComplete { r, e -> if (e != null) report.completeExceptionally(e) else report.complete(r) } }
        assertTrue(report.await().isClean())
        assertTrue(cleaned.await())
    }
}
