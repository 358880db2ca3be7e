package dev.corobridge.examples

import dev.corobridge.pump.ManualPump
import dev.corobridge.test.CorobridgeTest
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import java.time.Duration

// snippet-begin: test-kit-kotlin
@CorobridgeTest
class PollerTest {
    @Test
    fun `polls every minute on Main`(ui: ManualPump) {
        val poller = Poller()                              // launches on Dispatchers.Main
        ui.runUntilIdle()
        ui.advanceTimeBy(Duration.ofMinutes(1))
        assertEquals(2, poller.polls)
        poller.stop()                                      // cancel what you start ...
        ui.runUntilIdle()                                  // ... and let it finish, or the test fails
    }
}
// snippet-end: test-kit-kotlin
