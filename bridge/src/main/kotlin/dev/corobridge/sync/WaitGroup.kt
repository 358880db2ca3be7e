@file:JvmName("WaitGroups")

package dev.corobridge.sync

import dev.corobridge.bridge.await as awaitOutcome

// Kotlin face of WaitGroup.

/**
 * Suspends until the counter is zero (returns at once if it is). Cancelling the coroutine
 * withdraws this waiter only. Resumes on the caller's dispatcher.
 */
public suspend fun WaitGroup.await() {
    val r = round.get()
    if (r.count != 0L) r.zero.awaitOutcome()
}
