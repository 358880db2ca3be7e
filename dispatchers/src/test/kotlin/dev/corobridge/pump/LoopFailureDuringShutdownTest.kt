package dev.corobridge.pump

import java.util.concurrent.RejectedExecutionException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.ExecutionException
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertNull
import kotlin.test.assertSame
import kotlin.test.assertTrue

/**
 * The loop dies in phase 2 of a shutdown, while a coroutine's cleanup is still running, and the
 * forced termination that follows fails as well: the termination still completes, with both
 * failures, and the coroutine is not left suspended forever.
 */
class LoopFailureDuringShutdownTest {

    @Test
    fun `a loop that dies in phase 2 and cannot settle still fails its termination with both errors`() {
        val clock = PumpLoopFailureTest.FailingClock()
        val pump = MessagePump(
            PumpConfig.builder("dies-in-phase-2").latencySampleEvery(0).stallThreshold(Duration.ZERO).build(), clock,
        )
        val escaped = CompletableFuture<Throwable?>()
        val loop = Thread({
            try {
                pump.runLoop()
                escaped.complete(null)
            } catch (e: Throwable) {
                escaped.complete(e)
            }
        }, "dies-in-phase-2").apply { isDaemon = true; start() }

        val release = CompletableDeferred<Unit>()
        val cleanupResumed = CompletableFuture<Throwable?>()
        val inCleanup = CompletableFuture<Unit>()
        val running = CompletableFuture<Unit>()
        pump.scope.launch {
            try {
                running.complete(Unit)
                awaitCancellation()
            } finally {
                withContext(NonCancellable) {
                    inCleanup.complete(Unit)
                    cleanupResumed.complete(runCatching { release.await() }.exceptionOrNull())
                }
            }
        }
        running.get(TEST_WAIT.inWholeSeconds, TimeUnit.SECONDS) // the loop runs, and so does the coroutine
        pump.shutdown(Duration.ofHours(1))
        inCleanup.get(TEST_WAIT.inWholeSeconds, TimeUnit.SECONDS) // phase 1 done; phase 2 waits for this cleanup
        clock.failNext(Int.MAX_VALUE) // the loop's next look at the clock fails, and so does settling
        try {
            pump.execute { } // wake it, unless its spinning idle loop read the clock first and died already
        } catch (refused: RejectedExecutionException) {
            // it died already: execute refuses (post used to return false here)
        }

        val loopError = escaped.get(TEST_WAIT.inWholeSeconds, TimeUnit.SECONDS)
        assertIs<PumpLoopFailureTest.LoopBug>(loopError)
        loop.joinBounded()
        assertFalse(pump.awaitTermination(java.time.Duration.ofSeconds(TEST_WAIT.inWholeSeconds)))
        assertTrue(pump.isTerminated)
        val failed = assertFailsWith<ExecutionException> { pump.termination().get(TEST_WAIT.inWholeSeconds, TimeUnit.SECONDS) }
        val loopFailed = assertIs<PumpLoopFailedException>(failed.cause)
        assertSame(loopError, loopFailed.cause)
        assertNull(loopFailed.report(), "settling failed: no report")
        assertEquals(1, loopFailed.suppressed.size, "the settling failure travels with it")
        assertIs<PumpLoopFailureTest.LoopBug>(loopFailed.suppressed[0])
        assertFailsWith<RejectedExecutionException> { pump.execute { } }

        // The coroutine still in its cleanup is not stranded on a dead pump: as after any forced
        // termination, its resumption is refused, its job cancelled, and it resumes on the fallback.
        release.complete(Unit)
        assertIs<PumpShutdownException>(cleanupResumed.get(TEST_WAIT.inWholeSeconds, TimeUnit.SECONDS))
    }
}
