package dev.corobridge.pump

import kotlinx.coroutines.Dispatchers
import java.util.concurrent.Callable
import kotlin.coroutines.EmptyCoroutineContext

/**
 * Checks the Main contract against the real `Dispatchers.Main`; loaded by [RealDispatchersMainTest]
 * in a class loader without kotlinx-coroutines-test. Returns "ok" or throws what failed.
 */
class RealMainProbe : Callable<String> {

    override fun call(): String {
        val pump = ManualPump.create("real-main")
        MainPump.install(pump)
        try {
            expect("dev.corobridge.pump.PumpMainDispatcher", Dispatchers.Main.javaClass.name, "the dispatcher behind Dispatchers.Main")
            expect("Dispatchers.Main", Dispatchers.Main.toString(), "Dispatchers.Main.toString()")
            expect("Dispatchers.Main.immediate", Dispatchers.Main.immediate.toString(), "Dispatchers.Main.immediate.toString()")
            expect(true, Dispatchers.Main.isDispatchNeeded(EmptyCoroutineContext), "Main.isDispatchNeeded on the pump thread")
            expect(false, Dispatchers.Main.immediate.isDispatchNeeded(EmptyCoroutineContext),
                "Main.immediate.isDispatchNeeded on the pump thread")
            // The reference: the pump's own dispatcher resumes a delay inside the timer.
            expect(0L to 1L, MainDispatcherContractTest.costOfOneDelay(pump, pump.dispatcher),
                "(pump tasks, timers) for one delay on pump.dispatcher")
            expect(0L to 1L, MainDispatcherContractTest.costOfOneDelay(pump, Dispatchers.Main),
                "(pump tasks, timers) for one delay on Dispatchers.Main")
            expect(0L to 1L, MainDispatcherContractTest.costOfOneDelay(pump, Dispatchers.Main.immediate),
                "(pump tasks, timers) for one delay on Dispatchers.Main.immediate")
            expect(MainDispatcherContractTest.EXPECTED_AFTER_DELAY,
                MainDispatcherContractTest.orderAfterDelay(pump, Dispatchers.Main.immediate),
                "order after delay on Dispatchers.Main.immediate")
            return "ok"
        } finally {
            MainPump.uninstall(pump)
            pump.shutdownNow()
            pump.runUntilIdle()
        }
    }

    private fun expect(expected: Any?, actual: Any?, what: String) {
        if (expected != actual) throw AssertionError("$what: expected <$expected>, was <$actual>")
    }
}
