@file:JvmName("AsyncConditions")

package dev.corobridge.sync

import dev.corobridge.bridge.internal.awaitDecided

// Kotlin face of AsyncCondition.

/**
 * Releases the mutex (which the caller must hold, as [owner] if given), suspends until signalled,
 * and returns holding the mutex again — as [owner]: if another coroutine that shares the token
 * holds the mutex then, this one waits for it, so an enclosing `withLock(owner)` releases its own
 * hold. Resumes on the caller's dispatcher.
 *
 * Cancellation: if no signal chose this wait yet it is withdrawn and `CancellationException` is
 * thrown — after the mutex is held again, so an enclosing `withLock` unlocks correctly. If a
 * signal chose it first, it returns normally (the signal is not wasted) and the cancellation
 * shows at the next suspension point.
 *
 * @throws IllegalStateException if the mutex is not held
 */
public suspend fun AsyncCondition.await(owner: Any? = null) {
    enqueueAndUnlock(owner).awaitDecided()
}

/**
 * Suspends, holding the mutex, until [predicate] is true: evaluated now and after every signal,
 * always holding the mutex, so spurious and stolen wake-ups are harmless. Cancellation as for
 * [await]: it always ends holding the mutex; cancelled after a signal chose it, it evaluates
 * [predicate] once more and returns if it holds, else throws `CancellationException` from its next wait.
 */
public suspend inline fun AsyncCondition.awaitUntil(owner: Any? = null, predicate: () -> Boolean) {
    while (!predicate()) await(owner)
}
