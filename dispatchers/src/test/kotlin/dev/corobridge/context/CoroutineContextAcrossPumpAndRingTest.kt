package dev.corobridge.context

import dev.corobridge.bridge.HopTraceException
import dev.corobridge.bridge.await
import dev.corobridge.bridge.task
import dev.corobridge.pump.MessagePump
import dev.corobridge.ring.RingPool
import dev.corobridge.ring.RingPoolConfig
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.async
import kotlinx.coroutines.cancel
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.slf4j.MDC
import java.time.Duration
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNull
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * Issue 15, item 4 (Kotlin): a coroutine task started with an MDC value has it on the real pump, a
 * ring, Default and IO; the pump's next unrelated coroutine has nothing; a failure after crossing
 * pump → Default → ring carries all three hops.
 */
class CoroutineContextAcrossPumpAndRingTest {
    private val pump = MessagePump.start("ctxk-ui")
    private val rings = RingPool.start(
        RingPoolConfig.builder().name("ctxk-rings").rings(1).shutdownGracePeriod(Duration.ofSeconds(5)).build(),
    )
    private val ring = rings.next()
    private val scope = CoroutineScope(SupervisorJob())

    @AfterEach
    fun tearDown() {
        MDC.clear()
        scope.cancel()
        pump.shutdown().get(30, TimeUnit.SECONDS)
        rings.shutdown().get(60, TimeUnit.SECONDS)
    }

    private fun where() = "${MDC.get("request")}@${Thread.currentThread().name}"

    @Test
    fun `the starters MDC is on the pump, a ring, Default and IO, and not on the pumps next coroutine`() = runBlocking {
        MDC.put("request", "k-42")
        val task = scope.task(pump.dispatcher) {
            listOf(
                where(),
                withContext(ring.dispatcher) { where() },
                withContext(Dispatchers.Default) { where() },
                withContext(Dispatchers.IO) { where() },
                where(),
            )
        }
        MDC.clear()
        val seen = task.await()
        assertTrue(seen.all { it.startsWith("k-42@") }, seen.toString())
        assertTrue(seen[1].contains("ctxk-rings"), seen[1])
        assertNull(scope.async(pump.dispatcher) { MDC.get("request") }.await())
        assertNull(scope.async(ring.dispatcher) { MDC.get("request") }.await())
        // The returns to the pump show as steps when the pump really waited (a block that ends
        // before its caller suspends continues the caller on its own thread without a resume).
        val contexts = task.trace.hops.map { it.context() }
        assertEquals("ctxk-ui", contexts.first(), contexts.toString())
        assertEquals(listOf(ring.name, "Dispatchers.Default", "Dispatchers.IO"),
            contexts.filter { it != "ctxk-ui" }, contexts.toString())
    }

    @Test
    fun `a failure after pump, Default and ring carries all three hops`() = runBlocking<Unit> {
        MDC.put("request", "k-43")
        val task = scope.task(pump.dispatcher) {
            withContext(Dispatchers.Default) {
                withContext(ring.dispatcher) { error("journal failed for ${MDC.get("request")}") }
            }
        }
        MDC.clear()
        val e = assertFailsWith<IllegalStateException> { task.await() }
        assertEquals("journal failed for k-43", e.message)
        val hops = generateSequence<Throwable>(e) { it.cause }.flatMap { it.suppressed.asSequence() }
            .filterIsInstance<HopTraceException>().firstOrNull() ?: fail("no HopTraceException on " + e.stackTraceToString())
        val message = hops.message!!
        val pumpAt = message.indexOf("ctxk-ui @ ctxk-ui")
        val defaultAt = message.indexOf("Dispatchers.Default @ DefaultDispatcher-worker")
        val ringAt = message.indexOf("${ring.name} @ ")
        assertTrue(pumpAt in 0 until defaultAt && defaultAt < ringAt, message)
    }
}
