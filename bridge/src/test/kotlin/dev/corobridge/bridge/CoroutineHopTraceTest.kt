package dev.corobridge.bridge

import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.async
import kotlinx.coroutines.cancel
import kotlinx.coroutines.coroutineScope
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.yield
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import java.time.Duration
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import kotlin.coroutines.CoroutineContext
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue
import kotlin.test.fail

/**
 * Coroutine-backed tasks record their hops by themselves: every resume on another context or
 * thread is a step of `task.trace`, named after the context, and a failure carries them all.
 */
class CoroutineHopTraceTest {
    private val a = SingleThreadContext("A")
    private val b = SingleThreadContext("B")
    private val scope = CoroutineScope(SupervisorJob())
    private val routes = HopRoutes(a, b)

    @AfterEach
    fun tearDown() {
        scope.cancel()
        a.close()
        b.close()
    }

    private fun contexts(task: Task<*>) = task.trace.hops.map { it.context() }

    @Test
    fun `scope task records A, Default, A, B, A in order with readable names and threads`() {
        val task = scope.task(a.dispatcher) { routes.crossToB() }
        assertArrivedOnB(task.join(WAIT))
        val hops = task.trace.hops
        assertEquals(listOf("A", "Dispatchers.Default", "A", "B", "A"), hops.map { it.context() }, task.trace.toString())
        for (i in listOf(0, 2, 4)) assertTrue(hops[i].thread().startsWith("A-thread"), hops[i].thread())
        assertTrue(hops[1].thread().startsWith("DefaultDispatcher-worker"), hops[1].thread())
        assertTrue(hops[3].thread().startsWith("B-thread"), hops[3].thread())
    }

    @Test
    fun `a failure after crossing A, Default and B carries a HopTraceException listing every hop`() = runBlocking<Unit> {
        val task = scope.task(a.dispatcher) { routes.failOnB() }
        val e = assertFailsWith<IllegalStateException> { task.await() }
        assertEquals("failed on B", e.message)
        // kotlinx debug mode may rethrow a copy whose cause is the awaiter's copy: look along the chain.
        val hops = generateSequence<Throwable>(e) { it.cause }.flatMap { it.suppressed.asSequence() }
            .filterIsInstance<HopTraceException>().firstOrNull() ?: fail("no HopTraceException on " + e.stackTraceToString())
        val message = hops.message!!
        for (step in listOf("1. A @ A-thread", "2. Dispatchers.Default @ DefaultDispatcher-worker", "3. A @ A-thread", "4. B @ B-thread")) {
            assertTrue(message.contains(step), message)
        }
    }

    @Test
    fun `a coroutine that resumes on the same thread records no extra step`() {
        val task = scope.task(a.dispatcher) {
            repeat(5) { yield() } // each yield is a dispatch back to A's one thread
            withContext(a.dispatcher) { yield() } // the same context: no switch either
            "stayed"
        }
        assertEquals("stayed", task.join(WAIT))
        assertEquals(listOf("A"), contexts(task), task.trace.toString())
    }

    @Test
    fun `a step is labelled with HopNote, otherwise with the task's name`() {
        val task = scope.task(a.dispatcher + CoroutineName("load board")) {
            withContext(Dispatchers.Default + HopNote("render")) { routes.afterCallerSuspended() }
            "ok"
        }
        assertEquals("ok", task.join(WAIT))
        val hops = task.trace.hops
        assertEquals(listOf("load board", "render", "load board"), hops.map { it.note() }, task.trace.toString())
        assertEquals(listOf("A", "Dispatchers.Default", "A"), hops.map { it.context() })
    }

    @Test
    fun `a HopNote on the same thread records a labelled step, and the code after it the task's step again`() {
        val task = scope.task(a.dispatcher) {
            withContext(HopNote("validate")) { }
            "ok"
        }
        assertEquals("ok", task.join(WAIT))
        val hops = task.trace.hops
        assertEquals(listOf("A", "A", "A"), contexts(task), task.trace.toString())
        assertEquals(listOf(hops[0].note(), "validate", hops[0].note()), hops.map { it.note() }, task.trace.toString())
    }

    @Test
    fun `a task started inside a task keeps its own trace`() {
        val outer = scope.task(a.dispatcher) {
            val inner = task(b.dispatcher) { "inner" } // inherits the outer recorder, replaces it with its own
            inner.await()
            inner
        }
        val inner = outer.join(WAIT)
        assertEquals(listOf("B"), contexts(inner), inner.trace.toString())
        assertEquals(listOf("A"), contexts(outer), outer.trace.toString()) // resumed on A's one thread: no hop
    }

    @Test
    fun `children resuming concurrently on the pool record into the task's trace without corrupting it`() {
        val task = scope.task(a.dispatcher) {
            coroutineScope {
                repeat(16) { launch(Dispatchers.Default) { repeat(50) { yield() } } }
            }
            "done"
        }
        assertEquals("done", task.join(WAIT))
        val trace = task.trace
        val hops = trace.hops
        assertEquals("A", hops.first().context())
        assertTrue(hops.size in 2..trace.capacity, trace.toString())
        assertTrue(hops.drop(1).all { it.context() == "Dispatchers.Default" || it.context() == "A" }, trace.toString())
        assertTrue(hops.drop(1).any { it.context() == "Dispatchers.Default" }, trace.toString())
    }

    @Test
    fun `with tracing off a coroutine task records nothing`() {
        Tasks.setTracing(false)
        try {
            val task = scope.task(a.dispatcher) { routes.crossToB() }
            assertArrivedOnB(task.join(WAIT))
            assertEquals(emptyList(), contexts(task))
        } finally {
            Tasks.setTracing(true)
        }
    }

    /**
     * A dispatcher that runs each block on its own thread and returns from `dispatch` only when the
     * block has run: a `withContext` block on it ends before its caller can suspend, so the caller
     * goes on without a resume (kotlinx's fast return), on the thread it never left.
     */
    private class FinishesBeforeCallerSuspends : CoroutineDispatcher(), AutoCloseable {
        private val thread = Executors.newSingleThreadExecutor { Thread(it, "C-thread") }
        override fun dispatch(context: CoroutineContext, block: Runnable) {
            thread.submit(block).get(30, TimeUnit.SECONDS)
        }
        override fun toString() = "C"
        override fun close() = thread.shutdown()
    }

    @Test
    fun `code after a withContext block that ends before its caller suspends is recorded where it ran`() {
        FinishesBeforeCallerSuspends().use { c ->
            val task = scope.task(a.dispatcher) {
                withContext(c) { }
                "back"
            }
            assertEquals("back", task.join(WAIT))
            assertEquals(listOf("A", "C", "A"), contexts(task), task.trace.toString())
        }
    }

    @Test
    fun `a task started inside a recordingHops block records where its code ended into that trace too`() = runBlocking {
        FinishesBeforeCallerSuspends().use { c ->
            val request = HopTrace()
            val task = withContext(request.recordingHops("request")) {
                task(a.dispatcher) {
                    withContext(c) { }
                    "back"
                }
            }
            assertEquals("back", task.await())
            assertEquals(listOf("A", "C", "A"), contexts(task), task.trace.toString())
            assertEquals(listOf("A", "C", "A"), request.hops.map { it.context() }.dropWhile { it != "A" }, request.toString())
        }
    }

    @Test
    fun `a failure after a block's fast return lists the context it failed on last`() {
        FinishesBeforeCallerSuspends().use { c ->
            val task = scope.task(a.dispatcher) {
                withContext(c) { }
                throw IllegalStateException("failed on A")
            }
            val e = assertFailsWith<IllegalStateException> { task.join(WAIT) }
            val hops = generateSequence<Throwable>(e) { it.cause }.flatMap { it.suppressed.asSequence() }
                .filterIsInstance<HopTraceException>().firstOrNull() ?: fail("no HopTraceException on " + e.stackTraceToString())
            assertTrue(hops.message!!.contains("3. A @ A-thread"), hops.message)
        }
    }

    /** Thread names may carry kotlinx's debug suffix (" @coroutine#3") in tests. */
    private fun assertArrivedOnB(result: String) = assertTrue(result.startsWith("arrived@B-thread"), result)

    private companion object {
        val WAIT: Duration = Duration.ofSeconds(30)
    }

    @Test
    fun `recordingHops records a plain coroutine's hops into a given trace, labelled`() = runBlocking {
        val trace = HopTrace()
        withContext(trace.recordingHops("request")) {
            withContext(a.dispatcher + HopNote("on A")) { }
            withContext(b.dispatcher) { }
        }
        val hops = trace.hops
        val onA = hops.first { it.context() == "A" }
        val onB = hops.first { it.context() == "B" }
        assertEquals("on A", onA.note())
        assertEquals("request", onB.note())
        assertTrue(hops.indexOf(onA) < hops.indexOf(onB), trace.toString())
    }

    @Test
    fun `recordingHops inside a task records into both traces and keeps the task's context`() {
        val request = HopTrace()
        org.slf4j.MDC.put("request", "h-1")
        val task = scope.task(a.dispatcher) {
            withContext(b.dispatcher + request.recordingHops("request step")) { org.slf4j.MDC.get("request") }
        }
        org.slf4j.MDC.clear()
        assertEquals("h-1", task.join(WAIT), "the task's MDC inside the recordingHops block")
        assertEquals(listOf("A", "B", "A"), contexts(task), task.trace.toString())
        assertEquals(listOf("B"), request.hops.map { it.context() }, request.toString())
        assertEquals("request step", request.hops[0].note())
    }

    @Test
    fun `nested recordingHops record into every enclosing trace`() = runBlocking {
        val outer = HopTrace()
        val inner = HopTrace()
        withContext(outer.recordingHops("outer")) {
            withContext(a.dispatcher + inner.recordingHops("inner")) { }
        }
        assertTrue(outer.hops.any { it.context() == "A" }, outer.toString())
        assertEquals(listOf("A"), inner.hops.map { it.context() }, inner.toString())
    }

    @Test
    fun `a task started inside a recordingHops block keeps its own trace and still reaches the enclosing one`() = runBlocking {
        val request = HopTrace()
        val inner = withContext(request.recordingHops("request")) {
            val t = task(b.dispatcher) { "inner" }
            t.await()
            t
        }
        assertEquals(listOf("B"), contexts(inner), inner.trace.toString())
        assertTrue(request.hops.any { it.context() == "B" }, request.toString())
    }

    @Test
    fun `children resuming concurrently inside a recordingHops block of a task keep the task's context and feed both traces`() {
        val request = HopTrace(8)
        org.slf4j.MDC.put("request", "h-2")
        val task = scope.task(a.dispatcher) {
            withContext(request.recordingHops("request")) {
                coroutineScope {
                    List(16) {
                        async(Dispatchers.Default) {
                            var wrong = 0
                            repeat(50) {
                                yield()
                                if (org.slf4j.MDC.get("request") != "h-2") wrong++
                            }
                            wrong
                        }
                    }.sumOf { it.await() }
                }
            }
        }
        org.slf4j.MDC.clear()
        assertEquals(0, task.join(WAIT), "resumes without the task's MDC")
        assertTrue(task.trace.hops.any { it.context() == "Dispatchers.Default" }, task.trace.toString())
        val hops = request.hops
        assertTrue(hops.isNotEmpty() && hops.size <= request.capacity, request.toString())
        assertTrue(hops.all { it.context() == "Dispatchers.Default" || it.context() == "A" }, request.toString())
        assertTrue(hops.all { it.note() == "request" }, request.toString())
    }
}
