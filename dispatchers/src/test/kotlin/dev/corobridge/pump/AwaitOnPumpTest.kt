package dev.corobridge.pump

import dev.corobridge.bridge.Promise
import dev.corobridge.bridge.Task
import dev.corobridge.bridge.await
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.util.concurrent.Executors
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/** Kotlin awaiting Java awaitables completed elsewhere: the resumption is on the pump. */
class AwaitOnPumpTest {
    private val ui = MessagePump.start("await-ui")
    private val worker = Executors.newSingleThreadExecutor { Thread(it, "java-worker") }

    @AfterEach
    fun tearDown() {
        worker.shutdownNow()
        ui.shutdown().get()
    }

    @Test
    fun `a Task completed on a worker thread resumes the awaiter on the pump`() = runBlocking<Unit> {
        val fromJava: Task<String> = Task.start(worker) { "computed on " + Thread.currentThread().name }
        val promise = Promise<Int>()
        val (value, number, resumedOnPump) = withContext(ui.dispatcher) {
            worker.execute { promise.complete(42) }
            val v = fromJava.await()
            val n = promise.await()
            Triple(v, n, ui.isCurrentThread)
        }
        assertEquals("computed on java-worker", value)
        assertEquals(42, number)
        assertTrue(resumedOnPump)
    }
}
