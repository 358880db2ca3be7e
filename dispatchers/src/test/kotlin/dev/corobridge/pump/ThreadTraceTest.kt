package dev.corobridge.pump

import dev.corobridge.bridge.HopTrace
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertNotEquals
import kotlin.test.assertTrue

/** The seeds' "tid log" as a test: pump -> Dispatchers.Default -> pump, asserting the thread at each step. */
class ThreadTraceTest {
    private val pump = MessagePump.start("trace-ui")

    @AfterEach
    fun tearDown() {
        pump.shutdown().get()
    }

    @Test
    fun `a coroutine on the pump hops to Default and back`() = runBlocking<Unit> {
        val trace = HopTrace()
        val pumpThread = withContext(pump.dispatcher) {
            trace.record("pump", "start")
            assertTrue(pump.isCurrentThread)
            val bg = withContext(Dispatchers.Default) {
                trace.record("Default", "background work")
                assertTrue(!pump.isCurrentThread)
                Thread.currentThread()
            }
            trace.record("pump", "back")
            assertTrue(pump.isCurrentThread)
            assertNotEquals(bg, Thread.currentThread())
            Thread.currentThread()
        }
        val hops = trace.hops
        assertEquals(listOf("pump", "Default", "pump"), hops.map { it.context })
        // Thread names carry " @coroutine#N" in kotlinx debug mode (on under -ea): compare by id.
        assertEquals(pumpThread.threadId(), hops[0].threadId)
        assertTrue(hops[0].thread.startsWith("trace-ui"), hops[0].thread)
        assertTrue(hops[1].thread.startsWith("DefaultDispatcher-worker"), hops[1].thread)
        assertEquals(pumpThread.threadId(), hops[2].threadId)
    }
}
