package dev.corobridge.context

import dev.corobridge.bridge.SingleThreadContext
import dev.corobridge.bridge.Task
import dev.corobridge.bridge.TaskScope
import dev.corobridge.bridge.await
import dev.corobridge.bridge.task
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.async
import kotlinx.coroutines.cancel
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.slf4j.MDC
import java.time.Duration
import java.util.concurrent.Callable
import java.util.concurrent.CancellationException
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNull

/**
 * What a coroutine-backed task carries (issue 15, item 2, Kotlin): the starter's MDC and
 * ContextRegistry values at every resume — on a pump-like context, Default, IO, inside
 * `withContext` and child coroutines — and never on the same thread while it is suspended.
 */
class CoroutineContextPropagationTest {
    private val pump = SingleThreadContext("P")
    private val scope = CoroutineScope(SupervisorJob())

    companion object {
        private val TENANT = TaskContextPropagationTest.TENANT
        private const val KEY = "test.tenant.kt"
        private val WAIT: Duration = Duration.ofSeconds(30)

        @JvmStatic
        @BeforeAll
        fun register() {
            io.micrometer.context.ContextRegistry.getInstance().registerThreadLocalAccessor(KEY, TENANT)
        }

        @JvmStatic
        @AfterAll
        fun unregister() {
            io.micrometer.context.ContextRegistry.getInstance().removeThreadLocalAccessor(KEY)
        }
    }

    @AfterEach
    fun tearDown() {
        MDC.clear()
        TENANT.remove()
        scope.cancel()
        pump.close()
    }

    private fun seen() = "${MDC.get("request")}/${TENANT.get()}"

    @Test
    fun `scope task carries the starters values across pump, Default, IO and back`() {
        MDC.put("request", "k-1")
        TENANT.set("acme")
        val task = scope.task(pump.dispatcher) {
            val onPump = seen()
            val onDefault = withContext(Dispatchers.Default) { seen() }
            val inChild = withContext(Dispatchers.IO) { async(Dispatchers.Default) { seen() }.await() }
            listOf(onPump, onDefault, inChild, seen())
        }
        MDC.clear()
        TENANT.remove()
        assertEquals(List(4) { "k-1/acme" }, task.join(WAIT))
        assertEquals("null/null", Task.start(pump, Callable { seen() }).join(WAIT)) // nothing left behind on the pump
    }

    @Test
    fun `a suspended task's values are not on its thread while another coroutine runs there`() = runBlocking {
        val gate = CompletableDeferred<Unit>()
        MDC.put("request", "suspended")
        val first = scope.task(pump.dispatcher) {
            gate.await() // suspends on the pump
            seen()
        }
        MDC.clear()
        // Another, unrelated coroutine on the same pump thread, while the first is suspended.
        val other = scope.async(pump.dispatcher) { seen() }.await()
        assertEquals("null/null", other)
        gate.complete(Unit)
        assertEquals("suspended/null", first.await())
        assertEquals("null/null", scope.async(pump.dispatcher) { seen() }.await())
    }

    /**
     * A coroutine task completes inside its coroutine's resume, with its values on the thread: an
     * awaiter without values of its own that resumes inline there (an unconfined coroutine, one on
     * a dispatcher that does not dispatch from its own thread) must see the thread's values, not
     * the finished task's. It saw them until it suspended, and tasks it started carried them.
     */
    @Test
    fun `an awaiter resumed inline by a coroutine task's completion does not see the task's values`() = runBlocking {
        val gate = CompletableDeferred<Unit>()
        MDC.put("request", "r-A")
        TENANT.set("tenant-A")
        val a = scope.task(pump.dispatcher) {
            gate.await()
            "done"
        }
        MDC.clear()
        TENANT.remove()
        val resumed = CompletableDeferred<String>()
        scope.launch(Dispatchers.Unconfined) { // no values of its own: it runs where it is resumed
            a.await()
            resumed.complete(seen() + "@" + Thread.currentThread().name.substringBefore(" @coroutine"))
        }
        gate.complete(Unit)
        assertEquals("null/null@P-thread", resumed.await())
        assertEquals("null/null", scope.async(pump.dispatcher) { seen() }.await())
    }

    /**
     * The same for a callback registered from another thread while the task completes: whether
     * callbacks wait was read before the settle, so one registered in the instant between that read
     * and the settle ran inline on the pump's thread with the finished task's values. The
     * registrations here sweep across the moment of completion, round after round.
     */
    @Test
    fun `a callback registered while a coroutine task completes never runs inline with the task's values`() {
        val rounds = 20_000
        var inline = 0
        val leaked = mutableListOf<String>()
        for (round in 0 until rounds) {
            val finishing = java.util.concurrent.atomic.AtomicBoolean()
            MDC.put("request", "r-$round")
            TENANT.set("tenant-$round")
            val a = scope.task(pump.dispatcher) {
                finishing.set(true)
                round
            }
            MDC.clear()
            TENANT.remove()
            while (!finishing.get()) Thread.onSpinWait()
            repeat(round % 97) { Thread.onSpinWait() } // registrations before, during and after the settle
            val ran = java.util.concurrent.atomic.AtomicReference<String>()
            val done = java.util.concurrent.CountDownLatch(1)
            a.onComplete {
                ran.set(seen() + "@" + Thread.currentThread().name)
                done.countDown()
            }
            done.await()
            if (ran.get().contains("@P")) {
                inline++
                if (!ran.get().startsWith("null/null@")) leaked += "round $round: ${ran.get()}"
            }
        }
        assertEquals(listOf(), leaked.take(5), "${leaked.size} of $inline callbacks run inline at the settle saw the task's values")
    }

    @Test
    fun `startSuspend and TaskScope fork carry the Java starters values`() {
        MDC.put("request", "j-1")
        val viaSuspend: Task<String> = Task.startSuspend(pump) { withContext(Dispatchers.Default) { seen() } }
        val forked = TaskScope.open().use { ts -> ts.fork(pump as java.util.concurrent.Executor, Callable { seen() }).join(WAIT) }
        MDC.clear()
        assertEquals("j-1/null", viaSuspend.join(WAIT))
        assertEquals("j-1/null", forked)
    }

    @Test
    fun `PropagatedContext carries values into a plain coroutine and its exits clean up`() = runBlocking {
        MDC.put("request", "plain")
        val element = PropagatedContext()
        MDC.clear()
        assertEquals("plain/null", scope.async(pump.dispatcher + element) { withContext(Dispatchers.Default) { seen() } }.await())
        val failing = scope.async(pump.dispatcher + element) { error("boom ${seen()}") }
        assertEquals("boom plain/null", assertFailsWith<IllegalStateException> { failing.await() }.message)
        val cancelled = scope.launch(pump.dispatcher + element) { CompletableDeferred<Unit>().await() }
        cancelled.cancel()
        cancelled.join()
        assertEquals("null/null", scope.async(pump.dispatcher) { seen() }.await())
    }

    @Test
    fun `a cancelled coroutine task ends cancelled and leaves nothing`() = runBlocking {
        MDC.put("request", "c-1")
        val t = scope.task(pump.dispatcher) { CompletableDeferred<Unit>().await() }
        MDC.clear()
        t.cancel()
        assertFailsWith<CancellationException> { t.await() }
        assertEquals("null/null", scope.async(pump.dispatcher) { seen() }.await())
        assertNull(MDC.get("request"))
    }
}
