package dev.corobridge.pump

import kotlinx.coroutines.future.await
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.io.IOException
import java.util.concurrent.CompletableFuture
import java.util.concurrent.TimeUnit
import kotlin.concurrent.thread
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertIs
import kotlin.test.assertNotSame
import kotlin.test.assertSame
import kotlin.test.assertTrue

/** [MessagePump.completeOnPump] awaited from a coroutine on the pump. */
class CompleteOnPumpTest {
    private val pump = MessagePump.start("cop-ui")
    private val pumpThread: Thread = pump.thread()

    @AfterEach
    fun tearDown() {
        pump.shutdownAndWait()
    }

    @Test
    fun `awaiting a future completed on another thread resumes on the pump`() = pumpTest {
        val source = CompletableFuture<String>()
        val sourceCompletedOn = CompletableFuture<Thread>()
        source.whenComplete { _, _ -> sourceCompletedOn.complete(Thread.currentThread()) }
        val completer = thread(start = false, name = "cop-completer") { source.complete("hello") }

        val (value, resumedOn, dependentRanOn) = withContext(pump.dispatcher) {
            val onPump = pump.completeOnPump(source)
            // A non-async dependent runs on whichever thread completes the future: here, the pump.
            val dependent = onPump.thenApply { Thread.currentThread() }
            completer.start()
            val v = onPump.await()
            Triple(v, Thread.currentThread(), dependent.getNow(null))
        }
        assertEquals("hello", value)
        assertSame(pumpThread, resumedOn)
        assertSame(pumpThread, dependentRanOn)
        assertSame(completer, sourceCompletedOn.await())
        assertNotSame(pumpThread, completer)
        assertTrue(pump.metrics().completionsDelivered() >= 1)
    }

    @Test
    fun `a failure completed on another thread is rethrown on the pump, unwrapped`() = pumpTest {
        val source = CompletableFuture<String>()
        val failure = withContext(pump.dispatcher) {
            val onPump = pump.completeOnPump(source.thenApply { it.uppercase() }) // fails wrapped in CompletionException
            thread(name = "cop-failer") { source.completeExceptionally(IOException("disk on fire")) }
            val e = assertFailsWith<IOException> { onPump.await() }
            assertTrue(pump.isCurrentThread)
            e
        }
        assertEquals("disk on fire", failure.message)
    }

    @Test
    fun `an already completed stage is still delivered on the pump, never inline`() = pumpTest {
        val t = withContext(pump.dispatcher) {
            val onPump = pump.completeOnPump(CompletableFuture.completedFuture(1))
            // Delivered as a completion of the pump, after this task: not yet complete here.
            assertTrue(!onPump.isDone, "completed inline on the caller")
            onPump.thenApply { Thread.currentThread() }
        }.await()
        assertSame(pumpThread, t)
    }

    @Test
    fun `after termination the returned future fails with PumpShutdownException`() = pumpTest {
        val source = CompletableFuture<String>()
        val onPump = pump.completeOnPump(source)
        assertTrue(pump.shutdownAndWait().isClean())
        source.complete("too late")
        assertIs<PumpShutdownException>(onPump.failure())
        val late = pump.completeOnPump(CompletableFuture.completedFuture("later"))
        assertIs<PumpShutdownException>(late.failure())
    }
}

/** The raw exception a future failed with (bounded wait), without CompletableFuture's wrapping. */
private fun CompletableFuture<*>.failure(): Throwable? =
    handle { _, e -> e }.get(30, TimeUnit.SECONDS)
