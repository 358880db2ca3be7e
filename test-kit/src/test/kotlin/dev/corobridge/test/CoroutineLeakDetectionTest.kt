package dev.corobridge.test

import dev.corobridge.pump.ManualPump
import dev.corobridge.pump.PumpShutdownException
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.DelicateCoroutinesApi
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.GlobalScope
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.BeforeEach
import org.junit.jupiter.api.Test
import org.junit.platform.testkit.engine.EngineExecutionResults
import java.util.concurrent.ConcurrentHashMap
import kotlin.test.assertEquals
import kotlin.test.assertTrue

/**
 * A test that leaves coroutines running fails, naming them: those in the pump's scope and those it
 * started on `Dispatchers.Main` anywhere else (each reported once, by its outermost live job).
 * After the check the extension cancels them, and their cleanup runs on the test's pump.
 */
@OptIn(DelicateCoroutinesApi::class)
class CoroutineLeakDetectionTest {

    @BeforeEach
    fun clear() {
        cleanups.clear()
    }

    @Sample
    @CorobridgeTest
    class Leaks {
        @Test
        fun `leaves a coroutine in the pump's scope`(ui: ManualPump) {
            ui.scope.launch(CoroutineName("poller")) {
                try {
                    awaitCancellation()
                } catch (e: CancellationException) {
                    cleanups["poller"] = Cleanup(ui.isCurrentThread, e)
                    throw e
                }
            }
            ui.runUntilIdle()
        }

        @Test
        fun `leaves a coroutine on Dispatchers Main`(ui: ManualPump) {
            GlobalScope.launch(Dispatchers.Main + CoroutineName("watcher")) {
                // A child: part of its parent's leak, not a second one.
                launch(CoroutineName("watcher-child")) { awaitCancellation() }
                try {
                    delay(60_000)
                } catch (e: CancellationException) {
                    cleanups["watcher"] = Cleanup(ui.isCurrentThread, e)
                    throw e
                }
            }
            ui.runUntilIdle()
        }

        @Test
        fun `leaves a Main coroutine that never ran`(ui: ManualPump) {
            CoroutineScope(Dispatchers.Main).launch(CoroutineName("never-ran")) { }
        }

        @Test
        fun `finishes its coroutines`(ui: ManualPump) {
            val inScope = ui.scope.launch { delay(1_000) }
            val onMain = GlobalScope.launch(Dispatchers.Main) { delay(2_000) }
            val cancelled = GlobalScope.launch(Dispatchers.Main) { awaitCancellation() }
            ui.runUntilIdle()
            cancelled.cancel()
            ui.advanceUntilIdle()
            assertTrue(inScope.isCompleted && onMain.isCompleted && cancelled.isCompleted)
        }
    }

    @Test
    fun `running coroutines fail the test by name and are cancelled afterwards, cleaning up on the pump`() {
        val results = Samples.run(Leaks::class.java)
        assertEquals(listOf("finishes its coroutines"), Samples.succeeded(results))

        val inScope = failure(results, "leaves a coroutine in the pump's scope")
        assertThat(inScope.leaks()).singleElement().asString()
            .matches("1 coroutine still running in the scope of pump 'ui': \"poller$DEBUG_ID\":StandaloneCoroutine\\{Active}@.*")

        val onMain = failure(results, "leaves a coroutine on Dispatchers Main").leaks()
        assertEquals(2, onMain.size, onMain.toString())
        assertThat(onMain[0]).matches(
            "1 coroutine still running on Dispatchers\\.Main \\(pump 'ui'\\): \"watcher$DEBUG_ID\":StandaloneCoroutine\\{Active}@.*"
        )
        assertThat(onMain[1]).`as`("its delay").startsWith("1 timer pending on pump 'ui'")

        val neverRan = failure(results, "leaves a Main coroutine that never ran").leaks()
        assertEquals(2, neverRan.size, neverRan.toString())
        assertThat(neverRan[0]).matches("1 coroutine still running on Dispatchers\\.Main \\(pump 'ui'\\): \"never-ran$DEBUG_ID\":.*")
        assertThat(neverRan[1]).isEqualTo("1 task queued on pump 'ui' and never run (runUntilIdle() runs them)")

        for (name in listOf("poller", "watcher")) {
            val cleanup = cleanups[name] ?: error("$name never ran its finally block")
            assertTrue(cleanup.onPump, "$name cleaned up on its pump")
            assertThat(cleanup.cancellation).`as`(name).isInstanceOf(CancellationException::class.java)
        }
        assertThat(cleanups["poller"]!!.cancellation).`as`("the pump's shutdown cancels its scope")
            .isInstanceOf(PumpShutdownException::class.java)
        assertThat(cleanups["watcher"]!!.cancellation).hasMessageContaining("the test ended")
    }

    private fun failure(results: EngineExecutionResults, test: String): LeakedWorkError =
        Samples.failureOf(results, test) as LeakedWorkError

    data class Cleanup(val onPump: Boolean, val cancellation: Throwable)

    companion object {
        /** The "#id" that kotlinx's debug mode (on under -ea, as in surefire) appends to a coroutine's name. */
        private const val DEBUG_ID = "(#\\d+)?"

        val cleanups = ConcurrentHashMap<String, Cleanup>()
    }
}
