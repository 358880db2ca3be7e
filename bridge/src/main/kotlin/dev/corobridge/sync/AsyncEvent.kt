@file:JvmName("AsyncEvents")

package dev.corobridge.sync

import dev.corobridge.bridge.await as awaitOutcome

// Kotlin face of AsyncEvent.

/**
 * Suspends until the event is set and returns its value (at once if it is set). Cancelling the
 * coroutine withdraws this waiter only; an abandoned event throws `CancellationException`.
 * Resumes on the caller's dispatcher.
 */
public suspend fun <T> AsyncEvent<T>.await(): T = state.awaitOutcome()
