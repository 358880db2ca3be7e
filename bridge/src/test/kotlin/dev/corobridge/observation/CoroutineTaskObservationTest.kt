package dev.corobridge.observation

import dev.corobridge.bridge.HopNote
import dev.corobridge.bridge.SingleThreadContext
import dev.corobridge.bridge.await
import dev.corobridge.bridge.recordingHops
import dev.corobridge.bridge.task
import io.micrometer.observation.Observation
import io.micrometer.observation.ObservationRegistry
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertSame
import kotlin.test.assertTrue

/** Issue 15, item 3 (Kotlin): a coroutine task is one observation whose hops are its events. */
class CoroutineTaskObservationTest {
    private val pump = SingleThreadContext("obsk")
    private val scope = CoroutineScope(SupervisorJob())
    private val recorder = TaskObservationsTest.Recorder()
    private val registry = ObservationRegistry.create().also { it.observationConfig().observationHandler(recorder) }
    private val installed = TaskObservations.install(registry)

    @AfterEach
    fun tearDown() {
        installed.close()
        scope.cancel()
        pump.close()
    }

    @Test
    fun `a coroutine task is one observation, current at every resume, with its hops as events`() = runBlocking {
        val request = Observation.start("request", registry)
        val task = request.openScope().use {
            scope.task(pump.dispatcher + HopNote("board")) {
                val onPump = registry.currentObservation
                val onDefault = withContext(Dispatchers.Default + HopNote("words")) { registry.currentObservation }
                listOf(onPump, onDefault, registry.currentObservation)
            }
        }
        val seen = task.await()
        request.stop()
        val context = recorder.stopped.first { it.name == TaskObservations.NAME }
        assertTrue(seen.all { it?.context === context }, "the task's observation at every resume: $seen")
        assertSame(request, context.parentObservation)
        val events = recorder.events[context].orEmpty()
        assertTrue(events.first().startsWith("corobridge.hop: obsk (board) @ obsk-thread"), events.toString())
        assertTrue(events.any { it.startsWith("corobridge.hop: Dispatchers.Default (words) @ ") }, events.toString())
        assertEquals("success", context.getLowCardinalityKeyValue(TaskObservations.OUTCOME_KEY)?.value)
    }

    @Test
    fun `a failed coroutine task's observation carries the error`() = runBlocking<Unit> {
        val task = scope.task(pump.dispatcher) { withContext(Dispatchers.Default) { error("kt boom") } }
        assertFailsWith<IllegalStateException> { task.await() }
        val context = recorder.stopped.single { it.name == TaskObservations.NAME }
        assertEquals("failure", context.getLowCardinalityKeyValue(TaskObservations.OUTCOME_KEY)?.value)
        assertEquals("kt boom", context.error?.message)
    }

    @Test
    fun `an observation handler that throws when task {} opens the observation neither fails task {} nor leaves the observation open`() = runBlocking<Unit> {
        val throwing = TaskObservationsTest.Throwing()
        registry.observationConfig().observationHandler(throwing)
        throwing.scopeOpenings.set(1) // the scope task {} opens to capture the observation with the context
        val task = scope.task(pump.dispatcher + HopNote("opens badly")) { "ran" }
        assertEquals(null, registry.currentObservation, "a scope was left current where task {} was called")
        assertEquals("ran", task.await())
        val context = recorder.stopped.single { it.name == TaskObservations.NAME }
        assertEquals("success", context.getLowCardinalityKeyValue(TaskObservations.OUTCOME_KEY)?.value)
    }

    @Test
    fun `recordingHops inside a task keeps the task's observation current and its hops as events`() = runBlocking {
        val request = dev.corobridge.bridge.HopTrace()
        val task = scope.task(pump.dispatcher + HopNote("board")) {
            withContext(Dispatchers.Default + request.recordingHops("request")) { registry.currentObservation }
        }
        val inBlock = task.await()
        val context = recorder.stopped.single { it.name == TaskObservations.NAME }
        assertSame(context, inBlock?.context, "the task's observation inside the recordingHops block")
        val events = recorder.events[context].orEmpty()
        assertTrue(events.any { it.startsWith("corobridge.hop: Dispatchers.Default (board) @ ") }, events.toString())
        assertEquals(listOf("Dispatchers.Default"), request.hops.map { it.context() }, request.toString())
    }
}
