package dev.corobridge.context

import dev.corobridge.bridge.task
import dev.corobridge.pump.ManualPump
import io.micrometer.context.ContextRegistry
import io.micrometer.observation.Observation
import io.micrometer.observation.ObservationHandler
import io.micrometer.observation.ObservationRegistry
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.BeforeAll
import org.junit.jupiter.api.Test
import org.slf4j.MDC
import java.time.Duration
import java.util.concurrent.CancellationException
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * The pump runs consecutive coroutine resumptions that carry the same context inside one restore
 * of it (PumpLoop, "Context"), and puts the pump thread's own values back before anything else:
 * a plain runnable, a resumption of another context or of none, the end of the batch — after every
 * exit of the kept steps (suspension, value, failure, cancellation) — and a `withContext` block
 * started without a dispatch never hands its values to its caller. The pump is a [ManualPump]
 * driven by the test thread, whose own values ("own") must be back after every run.
 */
class PumpKeepsContextTest {

    companion object {
        private val TENANT = ThreadLocal<String>()
        private const val TENANT_KEY = "test.pump.keep.tenant"

        @JvmStatic
        @BeforeAll
        fun register() {
            ContextRegistry.getInstance().registerThreadLocalAccessor(TENANT_KEY, TENANT)
        }

        @JvmStatic
        @AfterAll
        fun unregister() {
            ContextRegistry.getInstance().removeThreadLocalAccessor(TENANT_KEY)
        }
    }

    private val pump = ManualPump.create("keep-ctx")
    private val scope = CoroutineScope(SupervisorJob() + pump.dispatcher)
    private val observations = ObservationRegistry.create()
    private val opened = AtomicInteger()
    private val closed = AtomicInteger()
    private val accessorsRegistryBefore = ObservationThreadLocalAccessor.getInstance().observationRegistry
    private val seen = ArrayList<String>()

    init {
        observations.observationConfig().observationHandler(object : ObservationHandler<Observation.Context> {
            override fun onScopeOpened(context: Observation.Context) {
                opened.incrementAndGet()
            }

            override fun onScopeClosed(context: Observation.Context) {
                closed.incrementAndGet()
            }

            override fun supportsContext(context: Observation.Context) = true
        })
        ObservationThreadLocalAccessor.getInstance().observationRegistry = observations
    }

    @AfterEach
    fun tearDown() {
        scope.cancel()
        pump.runUntilIdle()
        pump.shutdown()
        pump.runUntilIdle()
        ObservationThreadLocalAccessor.getInstance().observationRegistry = accessorsRegistryBefore
        MDC.clear()
        TENANT.remove()
    }

    private fun here(): String {
        val o = observations.currentObservation
        return "${MDC.get("request")}/${TENANT.get()}/${o?.context?.name}"
    }

    /** A captured request context: MDC, tenant and an observation in scope, taken off this thread again. */
    private fun request(id: String): CapturedContext {
        val o = Observation.start("obs-$id", observations)
        MDC.put("request", id)
        TENANT.set("t-$id")
        try {
            o.openScope().use { return ContextPropagation.capture() }
        } finally {
            MDC.remove("request")
            TENANT.remove()
        }
    }

    /** Runs the pump on the test thread, which holds its own values; they must be back afterwards. */
    private fun runPumpWithOwnValues() {
        MDC.put("request", "own")
        TENANT.set("own")
        pump.runUntilIdle()
        assertEquals("own/own/null", here(), "the pump thread's own values after the run")
        MDC.clear()
        TENANT.remove()
    }

    @Test
    fun `consecutive steps of one context run inside one restore and nothing else sees it`() {
        val r = request("r1")
        val gates = List(6) { CompletableDeferred<Unit>() }
        gates.forEachIndexed { i, gate ->
            scope.launch(PropagatedContext(r)) {
                seen += "start $i ${here()}"
                gate.await()
                seen += "resumed $i ${here()}"
            }
        }
        runPumpWithOwnValues()
        val scopesBefore = opened.get()
        // Back to back: resumptions 0, 1, 2, a plain runnable, 3, 4, a coroutine without context, 5.
        gates[0].complete(Unit)
        gates[1].complete(Unit)
        gates[2].complete(Unit)
        pump.execute { seen += "plain ${here()}" }
        gates[3].complete(Unit)
        gates[4].complete(Unit)
        scope.launch { seen += "bare ${here()}" }
        gates[5].complete(Unit)
        seen.clear()
        runPumpWithOwnValues()
        assertEquals(
            listOf(
                "resumed 0 r1/t-r1/obs-r1", "resumed 1 r1/t-r1/obs-r1", "resumed 2 r1/t-r1/obs-r1",
                "plain own/own/null",
                "resumed 3 r1/t-r1/obs-r1", "resumed 4 r1/t-r1/obs-r1",
                "bare own/own/null",
                "resumed 5 r1/t-r1/obs-r1",
            ),
            seen,
        )
        // Runs of 3 and 2 kept in one scope each, and 5 alone restored by itself: 3 scopes, not 6.
        assertEquals(3, opened.get() - scopesBefore, "observation scopes opened for six steps")
        assertEquals(opened.get(), closed.get(), "every scope opened was closed")
    }

    @Test
    fun `what a kept step changes on the thread is not seen by the next step of the same context`() {
        val r = request("r9")
        val other = Observation.start("obs-other", observations)
        val gates = List(4) { CompletableDeferred<Unit>() }
        for (i in 0..3) {
            scope.launch(PropagatedContext(r)) {
                gates[i].await()
                seen += "step $i ${here()}"
                when (i) {
                    0 -> MDC.put("request", "changed-by-0") // left changed when the step suspends or ends
                    1 -> TENANT.set("changed-by-1")
                    2 -> other.openScope() // an observation scope opened and never closed by the step
                }
                gates[(i + 1) % 4].await() // 0-2 suspend again until the next one ran; 3 ends
                seen += "again $i ${here()}"
            }
        }
        runPumpWithOwnValues()
        seen.clear()
        gates[0].complete(Unit)
        gates[1].complete(Unit)
        gates[2].complete(Unit)
        gates[3].complete(Unit)
        runPumpWithOwnValues()
        pump.execute { seen += "plain ${here()}" }
        runPumpWithOwnValues()
        for (i in 0..3) {
            assertTrue(seen.contains("step $i r9/t-r9/obs-r9"), "step $i sees exactly its context: $seen")
        }
        assertTrue(seen.contains("plain own/own/null"), seen.toString())
        other.stop()
    }

    @Test
    fun `after every exit of a kept step the next plain runnable and a step of another context see nothing of it`() {
        val r = request("r2")
        val other = request("r3")
        val gates = List(5) { CompletableDeferred<Unit>() }
        val outcomes = ArrayList<String>()
        fun start(i: Int, ctx: CapturedContext, exit: () -> Unit) {
            scope.launch(PropagatedContext(ctx)) {
                try {
                    gates[i].await()
                    seen += "step $i ${here()}"
                    exit()
                } catch (e: Throwable) {
                    seen += "finally $i ${here()} ${e::class.simpleName}"
                    throw e
                }
            }.invokeOnCompletion { outcomes += "$i: ${it?.let { e -> e::class.simpleName }}" }
        }
        start(0, r) { } // value
        start(1, r) { throw IllegalStateException("boom") } // failure
        start(2, r) { throw CancellationException("cancelled") } // cancellation
        start(3, r) { } // value, then a plain runnable
        start(4, other) { } // another context right after
        runPumpWithOwnValues()
        val scopesBefore = opened.get()
        for (i in 0..2) gates[i].complete(Unit)
        pump.execute { seen += "plain after failure/cancel ${here()}" }
        gates[3].complete(Unit)
        gates[4].complete(Unit)
        pump.execute { seen += "plain at the end ${here()}" }
        seen.clear()
        runPumpWithOwnValues()
        assertEquals(
            listOf(
                "step 0 r2/t-r2/obs-r2",
                "step 1 r2/t-r2/obs-r2", "finally 1 r2/t-r2/obs-r2 IllegalStateException",
                "step 2 r2/t-r2/obs-r2", "finally 2 r2/t-r2/obs-r2 CancellationException",
                "plain after failure/cancel own/own/null",
                "step 3 r2/t-r2/obs-r2",
                "step 4 r3/t-r3/obs-r3",
                "plain at the end own/own/null",
            ),
            seen,
        )
        assertTrue(outcomes.containsAll(listOf("0: null", "1: IllegalStateException", "2: CancellationException", "3: null", "4: null")), outcomes.toString())
        assertEquals(3, opened.get() - scopesBefore, "0-2 kept in one scope; 3 and 4 each by itself")
        assertEquals(opened.get(), closed.get(), "every scope opened was closed")
    }

    @Test
    fun `a withContext block started without a dispatch does not hand its values to its caller`() {
        val r = request("r4")
        val gates = List(2) { CompletableDeferred<Unit>() }
        // A caller without a context; its block (same dispatcher: started undispatched) carries r4.
        scope.launch {
            withContext(PropagatedContext(r)) {
                gates[0].await()
                seen += "block ${here()}"
            }
            seen += "caller after the block ${here()}"
        }
        // Another coroutine of r4, queued right after the block's resumption.
        scope.launch(PropagatedContext(r)) {
            gates[1].await()
            seen += "other ${here()}"
        }
        runPumpWithOwnValues()
        gates[0].complete(Unit)
        gates[1].complete(Unit)
        seen.clear()
        runPumpWithOwnValues()
        assertEquals(listOf("block r4/t-r4/obs-r4", "caller after the block own/own/null", "other r4/t-r4/obs-r4"), seen)
        assertEquals(opened.get(), closed.get(), "every scope opened was closed")
    }

    @Test
    fun `consecutive steps of corobridge tasks that captured the same values share one restore`() {
        val r = request("r5")
        val gates = List(4) { CompletableDeferred<Unit>() }
        r.restore().use { // each task captures here: equal values, different captures
            gates.forEachIndexed { i, gate ->
                scope.task(pump.dispatcher) {
                    gate.await()
                    seen += "task $i ${here()}"
                }
            }
        }
        runPumpWithOwnValues()
        val scopesBefore = opened.get()
        gates.forEach { it.complete(Unit) }
        seen.clear()
        runPumpWithOwnValues()
        assertEquals((0..3).map { "task $it r5/t-r5/obs-r5" }, seen)
        assertEquals(1, opened.get() - scopesBefore, "four steps of equal captures, one scope")
        assertEquals(opened.get(), closed.get(), "every scope opened was closed")
    }

    @Test
    fun `a nested loop inside a kept step runs other work without the kept values and gives them back`() {
        val r = request("r6")
        val gates = List(2) { CompletableDeferred<Unit>() }
        var plainRan = false
        scope.launch(PropagatedContext(r)) {
            gates[0].await()
            seen += "outer before ${here()}"
            pump.pumpUntil({ plainRan }, Duration.ofSeconds(30)) // runs the second coroutine and the plain post
            seen += "outer after ${here()}"
        }
        scope.launch(PropagatedContext(r)) {
            gates[1].await()
            seen += "second ${here()}"
        }
        runPumpWithOwnValues()
        gates[0].complete(Unit)
        gates[1].complete(Unit) // queued right behind the first: a kept run of two
        pump.execute {
            seen += "plain ${here()}"
            plainRan = true
        }
        seen.clear()
        runPumpWithOwnValues()
        assertEquals(
            listOf("outer before r6/t-r6/obs-r6", "second r6/t-r6/obs-r6", "plain null/null/null", "outer after r6/t-r6/obs-r6"),
            seen,
        )
        assertEquals(opened.get(), closed.get(), "every scope opened was closed")
    }
}
