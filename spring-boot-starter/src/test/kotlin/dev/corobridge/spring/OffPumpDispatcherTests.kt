package dev.corobridge.spring

import dev.corobridge.bridge.Task
import dev.corobridge.pump.MessagePump
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestInstance
import java.time.Duration
import java.util.concurrent.Executors

/**
 * [OffPumpDispatcher]: code starts where it is called, a resumption off the pump continues in place,
 * a resumption on the pump (the end of `withContext(pump.dispatcher)`) moves to the fallback.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OffPumpDispatcherTests {

    private val pump = MessagePump.start("off-pump-test")
    private val fallbackExecutor = Executors.newSingleThreadExecutor { r -> Thread(r, "fallback-test") }
    private val dispatcher = OffPumpDispatcher(pump, fallbackExecutor.asCoroutineDispatcher())

    /** The thread's name without the coroutine that kotlinx's debug mode appends. */
    private fun thread(): String = Thread.currentThread().name.substringBefore(" @coroutine")

    @Test
    fun `code leaves the pump for the fallback and otherwise stays where it runs`() {
        val caller = thread()
        repeat(100) {
            val release = CompletableDeferred<Unit>()
            val threads = CompletableDeferred<List<String>>()
            CoroutineScope(dispatcher).launch {
                val start = thread()
                // The pump finishes this block only after launch returned below, so the coroutine is
                // suspended by then and the pump resumes it: never the caller's own thread.
                val onPump = withContext(pump.dispatcher) { release.await(); thread() }
                val after = thread()
                yield()
                threads.complete(listOf(start, onPump, after, thread()))
            }
            release.complete(Unit)
            val t = runBlocking { threads.await() }
            assertThat(t[0]).`as`("starts in place, no hop").isEqualTo(caller)
            assertThat(t[1]).isEqualTo("off-pump-test")
            assertThat(t[2]).`as`("resumed from the pump: on the fallback").isEqualTo("fallback-test")
            assertThat(t[3]).isNotEqualTo("off-pump-test")
        }
    }

    @Test
    fun `whichever thread finishes first, code after a pump step is never on the pump`() {
        // withContext returns on the caller's thread when the pump was done first, else the fallback.
        repeat(100) {
            val after = runBlocking(dispatcher) {
                withContext(pump.dispatcher) { thread() }
                thread()
            }
            assertThat(after).isNotEqualTo("off-pump-test")
        }
    }

    @Test
    fun `a dispatch is needed only on the pump thread`() {
        val context = kotlin.coroutines.EmptyCoroutineContext
        assertThat(dispatcher.isDispatchNeeded(context)).isFalse()
        assertThat(Task.start(pump) { dispatcher.isDispatchNeeded(context) }.toCompletableFuture().get()).isTrue()
        assertThat(dispatcher.toString()).contains("off-pump-test")
    }

    @AfterAll
    fun stop() {
        fallbackExecutor.shutdown()
        pump.shutdown(Duration.ofSeconds(5)).get()
    }
}
