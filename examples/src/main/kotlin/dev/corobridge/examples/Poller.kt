package dev.corobridge.examples

import kotlinx.coroutines.CoroutineName
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlin.time.Duration.Companion.minutes

/**
 * Polls once a minute on `Dispatchers.Main` until [stop]ped, for the test-kit README's Kotlin
 * test. Confined to the main thread: [polls] is read there.
 */
class Poller {
    private val scope = CoroutineScope(SupervisorJob() + Dispatchers.Main + CoroutineName("poller"))

    /** How many polls have run. */
    var polls: Int = 0
        private set

    init {
        scope.launch {
            while (true) {
                polls++
                delay(1.minutes)
            }
        }
    }

    /** Cancels the polling. */
    fun stop() {
        scope.cancel()
    }
}
