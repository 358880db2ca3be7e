package dev.corobridge.spring

import dev.corobridge.bridge.Task
import dev.corobridge.bridge.await
import dev.corobridge.bridge.task
import dev.corobridge.context.PropagatedContext
import dev.corobridge.pump.MessagePump
import io.micrometer.context.ContextRegistry
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
import org.springframework.core.PropagationContextElement
import java.time.Duration
import java.util.concurrent.Callable
import java.util.concurrent.TimeUnit
import org.junit.jupiter.api.Assertions.assertEquals

/**
 * Issue 15, item 2: Spring 7's `PropagationContextElement` (what Spring puts around suspend
 * handlers) and corobridge's propagation work together: values Spring restores are captured by
 * tasks started there, values a task restores are captured by Spring's element, and both leave the
 * threads as they found them.
 */
class PropagationContextElementInteropTests {
    private val pump = MessagePump.start("interop-ui")
    private val scope = CoroutineScope(SupervisorJob())
    private val key = "interop.tenant"
    private val tenant = ThreadLocal<String>()

    init {
        ContextRegistry.getInstance().registerThreadLocalAccessor(key, tenant)
    }

    @AfterEach
    fun tearDown() {
        ContextRegistry.getInstance().removeThreadLocalAccessor(key)
        MDC.clear()
        tenant.remove()
        scope.cancel()
        pump.shutdown().get(30, TimeUnit.SECONDS)
    }

    private fun seen() = "${tenant.get()}/${MDC.get("request")}"

    @Test
    fun `a task started inside Spring's element carries what Spring restored`() = runBlocking<Unit> {
        tenant.set("acme")
        val spring = PropagationContextElement() // captures here, as Spring does for a handler
        tenant.remove()
        val result = scope.async(Dispatchers.Default + spring) {
            // Spring restored the value on this Default thread; the task captures it and takes it to the pump.
            scope.task(pump.dispatcher) { withContext(Dispatchers.IO) { seen() } }.await()
        }.await()
        assertEquals("acme/null", result)
        assertEquals("null/null", Task.start(pump, Callable { seen() }).join(Duration.ofSeconds(30)))
    }

    @Test
    fun `Spring's element created inside a task captures the task's values, and both elements in one context agree`() = runBlocking<Unit> {
        tenant.set("globex")
        MDC.put("request", "r-9")
        val fromTask = Task.start(pump, Callable {
            // A coroutine launched from task code with Spring's element sees what the task restored.
            runBlocking(PropagationContextElement()) { withContext(Dispatchers.Default) { seen() } }
        })
        val both = scope.async(pump.dispatcher + PropagationContextElement() + PropagatedContext()) {
            withContext(Dispatchers.Default) { seen() }
        }
        tenant.remove()
        MDC.clear()
        // Spring's element carries the registry's thread-locals; the MDC travels with corobridge's.
        assertEquals("globex/null", fromTask.join(Duration.ofSeconds(30)))
        assertEquals("globex/r-9", both.await())
        assertEquals("null/null", Task.start(pump, Callable { seen() }).join(Duration.ofSeconds(30)))
    }
}
