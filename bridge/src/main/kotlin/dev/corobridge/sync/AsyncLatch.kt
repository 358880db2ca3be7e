@file:JvmName("AsyncLatches")

package dev.corobridge.sync

import dev.corobridge.bridge.await as awaitOutcome

// Kotlin face of AsyncLatch.

/**
 * Suspends until the latch is open (returns at once if it is). Cancelling the coroutine withdraws
 * this waiter only. Resumes on the caller's dispatcher.
 */
public suspend fun AsyncLatch.await() {
    open.awaitOutcome()
}
