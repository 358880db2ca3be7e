package dev.corobridge.examples

import dev.corobridge.bridge.HopTrace
import dev.corobridge.pump.MessagePump
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

/** The Kotlin half of the demo: the same hops written as `withContext` blocks. */
object KotlinThreadTrace {
    @JvmStatic
    fun run(ui: MessagePump): HopTrace = runBlocking {
        val trace = HopTrace()
        withContext(ui.dispatcher) {
            trace.record("ui", "start on the pump")
            val sum = withContext(Dispatchers.Default) {
                trace.record("Default", "crunch numbers")
                (1..1_000_000L).sum()
            }
            delay(10) // the pump's own timer
            trace.record("ui", "back on the pump after delay: sum=$sum")
        }
        trace
    }
}
