@file:JvmName("AsyncMutexes")

package dev.corobridge.sync

import kotlin.contracts.ExperimentalContracts
import kotlin.contracts.InvocationKind
import kotlin.contracts.contract

// Kotlin face of AsyncMutex: suspending functions straight onto the kotlinx Mutex inside.

/**
 * Locks this mutex, suspending while another holds it: FIFO, not reentrant. Cancellable — a
 * cancelled `lock()` never ends up holding the lock (a lock granted in the same instant is passed
 * on). Resumes on the caller's dispatcher.
 *
 * @param owner optional token: [AsyncMutex.unlock] with another token then fails, and a reentrant
 *   `lock(owner)` throws [IllegalStateException] instead of waiting for itself forever
 */
public suspend fun AsyncMutex.lock(owner: Any? = null) {
    if (owner != null && delegate.holdsLock(owner)) {
        throw IllegalStateException("AsyncMutex is not reentrant: it is already locked by $owner")
    }
    delegate.lock(owner)
}

/** Runs [action] holding this mutex and unlocks it however [action] ends. */
@OptIn(ExperimentalContracts::class)
public suspend inline fun <T> AsyncMutex.withLock(owner: Any? = null, action: () -> T): T {
    contract { callsInPlace(action, InvocationKind.EXACTLY_ONCE) }
    lock(owner)
    try {
        return action()
    } finally {
        if (owner == null) unlock() else unlock(owner)
    }
}
