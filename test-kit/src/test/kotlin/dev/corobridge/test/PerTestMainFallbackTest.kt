package dev.corobridge.test

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Delay
import kotlinx.coroutines.DisposableHandle
import kotlinx.coroutines.InternalCoroutinesApi
import kotlinx.coroutines.MainCoroutineDispatcher
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.withTimeoutOrNull
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.CompletableFuture
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.coroutines.CoroutineContext
import kotlin.test.assertEquals
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * Outside a test, the per-test Main hands every call to the Main the class path would have had
 * without corobridge-test (a UI toolkit's, corobridge-main's): checked with stand-in Mains, one
 * with timers of its own and one without. (This module's class path has no other Main, so
 * [PerTestMainDispatcherFactory] has no fallback here; see `PerTestMainTest` for that case.)
 */
@OptIn(InternalCoroutinesApi::class)
class PerTestMainFallbackTest {
    private val mainThread = Executors.newSingleThreadExecutor { r -> Thread(r, "stand-in-main").apply { isDaemon = true } }

    @AfterEach
    fun tearDown() {
        mainThread.shutdownNow()
    }

    /** A Main on [mainThread], without timers of its own. */
    private open inner class StandInMain(private val immediateView: Boolean = false) : MainCoroutineDispatcher() {
        val dispatches = java.util.concurrent.atomic.AtomicInteger()
        override val immediate: MainCoroutineDispatcher get() = if (immediateView) this else StandInMain(true)
        override fun isDispatchNeeded(context: CoroutineContext) = !immediateView
        override fun dispatch(context: CoroutineContext, block: Runnable) {
            dispatches.incrementAndGet()
            mainThread.execute(block)
        }
        override fun toString() = "stand-in" + if (immediateView) ".immediate" else ""
    }

    /** The same with timers of its own, which it counts. */
    private inner class StandInMainWithTimers : StandInMain(), Delay {
        val timers = java.util.concurrent.atomic.AtomicInteger()
        override fun scheduleResumeAfterDelay(timeMillis: Long, continuation: CancellableContinuation<Unit>) {
            timers.incrementAndGet()
            val f = Executors.newSingleThreadScheduledExecutor()
            f.schedule({ with(continuation) { resumeUndispatched(Unit) }; f.shutdown() }, timeMillis, TimeUnit.MILLISECONDS)
        }
        override fun invokeOnTimeout(timeMillis: Long, block: Runnable, context: CoroutineContext): DisposableHandle {
            timers.incrementAndGet()
            val f = Executors.newSingleThreadScheduledExecutor()
            val scheduled = f.schedule({ block.run(); f.shutdown() }, timeMillis, TimeUnit.MILLISECONDS)
            return DisposableHandle { scheduled.cancel(false); f.shutdown() }
        }
    }

    /** Runs [body] in a coroutine on [main]; returns the name of the thread it ended on. */
    private fun runOnMain(main: MainCoroutineDispatcher, body: suspend () -> Unit): String {
        val ranOn = CompletableFuture<String>()
        CoroutineScope(main).launch {
            body()
            // Without the " @coroutine#n" that kotlinx's debug mode (on under -ea) appends meanwhile.
            ranOn.complete(Thread.currentThread().name.substringBefore(" @"))
        }.invokeOnCompletion { if (it != null) ranOn.completeExceptionally(it) }
        return ranOn.get(60, TimeUnit.SECONDS)
    }

    @Test
    fun `dispatch and immediate go to the fallback and its immediate view`() {
        val fallback = StandInMain()
        val main = PerTestMainDispatcher(lazyOf(fallback))
        assertTrue(main.isDispatchNeeded(kotlin.coroutines.EmptyCoroutineContext))
        assertEquals(false, main.immediate.isDispatchNeeded(kotlin.coroutines.EmptyCoroutineContext))
        assertEquals("stand-in-main", runOnMain(main) { })
        assertEquals(1, fallback.dispatches.get())
    }

    @Test
    fun `delay and timeouts use the fallback's timers when it has them`() {
        val fallback = StandInMainWithTimers()
        val main = PerTestMainDispatcher(lazyOf(fallback))
        val thread = runOnMain(main) {
            delay(1)
            assertEquals(null, withTimeoutOrNull(1) { awaitCancellation() })
        }
        assertEquals("stand-in-main", thread, "resumed through Main")
        assertEquals(2, fallback.timers.get(), "one for the delay, one for the timeout")
    }

    @Test
    fun `delay and timeouts fall back to kotlinx's timer when the fallback has none, resuming through Main`() {
        val fallback = StandInMain()
        val main = PerTestMainDispatcher(lazyOf(fallback))
        val afterDelay = CompletableFuture<String>()
        val thread = runOnMain(main) {
            delay(1)
            afterDelay.complete(Thread.currentThread().name.substringBefore(" @"))
            assertEquals(null, withTimeoutOrNull(1) { awaitCancellation() })
        }
        // kotlinx's timer thread fires the delay and the timeout; the coroutine goes on on Main. (How
        // many dispatches that takes is not fixed: a timer that fires before the coroutine has
        // finished suspending hands the value over in place, with no dispatch, on a busy machine.)
        assertEquals("stand-in-main", afterDelay.get(60, TimeUnit.SECONDS), "resumed through Main after the delay")
        assertEquals("stand-in-main", thread, "resumed through Main after the timeout")
        assertTrue(fallback.dispatches.get() >= 1, "the start was dispatched through the fallback")
    }

    @Test
    fun `the factory wraps the best factory below it and leaves out those above it`() {
        val factory = PerTestMainDispatcherFactory()
        val below = StubFactory(5)
        val lower = StubFactory(1)
        val above = StubFactory(Int.MAX_VALUE)
        val main = factory.createDispatcher(listOf(lower, above, factory, below))
        main.isDispatchNeeded(kotlin.coroutines.EmptyCoroutineContext) // unbound: creates the fallback
        assertEquals(listOf(true, false, false), listOf(below, lower, above).map { it.created })
        assertEquals(listOf(lower, below), below.createdWith, "the factories below, for the fallback to choose from")
    }

    private inner class StubFactory(override val loadPriority: Int) : kotlinx.coroutines.internal.MainDispatcherFactory {
        val dispatcher = StandInMain()
        var created = false
        var createdWith: List<kotlinx.coroutines.internal.MainDispatcherFactory>? = null
        override fun createDispatcher(allFactories: List<kotlinx.coroutines.internal.MainDispatcherFactory>): MainCoroutineDispatcher {
            created = true
            createdWith = allFactories
            return dispatcher
        }
    }
}
