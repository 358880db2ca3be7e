package dev.corobridge.context

import dev.corobridge.bridge.HopNote
import dev.corobridge.bridge.Task
import dev.corobridge.observation.TaskObservations
import dev.corobridge.pump.MessagePump
import io.micrometer.context.ContextRegistry
import io.micrometer.observation.NullObservation
import io.micrometer.observation.Observation
import io.micrometer.observation.ObservationHandler
import io.micrometer.observation.ObservationRegistry
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.launch
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.slf4j.MDC
import java.time.Duration
import java.util.concurrent.Callable
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.TimeUnit
import kotlin.test.assertEquals

/**
 * Work that a nested loop (`pumpUntil`) runs inside a task's step — a raw `execute` runnable, a
 * plain coroutine, a task that captured nothing — runs with the context it brought, or none: not
 * with the step's MDC, registered thread-locals or observation; a task created there captures
 * nothing of the step; and the step has its own context back when `pumpUntil` returns.
 */
class NestedLoopContextTest {
    private val pump = MessagePump.start("nested-ctx")
    private val registry = ObservationRegistry.create().also {
        // A registry without handlers is a no-op one, which makes no observations.
        it.observationConfig().observationHandler(ObservationHandler<Observation.Context> { true })
    }
    private val observing = TaskObservations.install(registry)

    companion object {
        private val TENANT = ThreadLocal<String>()
        private const val KEY = "nested.tenant"
        private val WAIT: Duration = Duration.ofSeconds(30)

        @JvmStatic
        @BeforeAll
        fun register() {
            ContextRegistry.getInstance().registerThreadLocalAccessor(KEY, TENANT)
        }

        @JvmStatic
        @AfterAll
        fun unregister() {
            ContextRegistry.getInstance().removeThreadLocalAccessor(KEY)
        }
    }

    @AfterEach
    fun tearDown() {
        observing.close()
        MDC.clear()
        TENANT.remove()
        pump.shutdown().get(30, TimeUnit.SECONDS)
    }

    /** The current observation: none (or Micrometer's cleared one, a NullObservation), else its contextual name. */
    private fun currentObservation(): Observation? = registry.currentObservation?.takeUnless { it is NullObservation }

    private fun view() = "${MDC.get("request")}/${TENANT.get()}/${currentObservation()?.context?.contextualName}"

    @OptIn(DelicateCoroutinesApi::class)
    @Test
    fun `work pumped inside a task step runs with its own context or none, and the step gets its own back`() {
        val seen = ConcurrentHashMap<String, String>()
        val created = ConcurrentHashMap<String, Task<String>>()
        MDC.put("request", "outer")
        TENANT.set("outer-tenant")
        val outer = Task.start(HopNote.on(pump, "outer step"), Callable {
            val before = view()
            // A thread with no context posts work while the step waits in a nested loop.
            val outsider = Thread {
                pump.execute {
                    seen["raw runnable"] = view()
                    // Created in nested work: it must capture nothing of the outer step.
                    created["task created there"] = Task.start(Dispatchers.Default, Callable {
                        "${MDC.get("request")}/${TENANT.get()}/parent=${currentObservation()?.context?.parentObservation?.contextView?.contextualName}"
                    })
                }
                GlobalScope.launch(pump.dispatcher) { seen["plain coroutine"] = view() }
                Task.start(pump, Callable { seen["task without context"] = view() })
            }
            outsider.start()
            check(pump.pumpUntil({ seen.size == 3 && created.size == 1 }, WAIT)) { "nested work did not run: $seen" }
            outsider.join(WAIT.toMillis())
            "$before then ${view()}"
        })
        MDC.clear()
        TENANT.remove()

        assertEquals("outer/outer-tenant/outer step then outer/outer-tenant/outer step", outer.join(WAIT))
        assertEquals("null/null/null", seen["raw runnable"], "raw runnable")
        assertEquals("null/null/null", seen["plain coroutine"], "plain coroutine")
        // A task runs under its own observation (named after its context); it has none of the outer step's.
        assertEquals("null/null/nested-ctx", seen["task without context"], "task without context")
        assertEquals("null/null/parent=null", created["task created there"]!!.join(WAIT))
        assertEquals("null/null/nested-ctx", Task.start(pump, Callable { view() }).join(WAIT), "left on the pump")
    }
}
