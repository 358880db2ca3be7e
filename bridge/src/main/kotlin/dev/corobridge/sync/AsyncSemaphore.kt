@file:JvmName("AsyncSemaphores")

package dev.corobridge.sync

import kotlin.contracts.ExperimentalContracts
import kotlin.contracts.InvocationKind
import kotlin.contracts.contract

// Kotlin face of AsyncSemaphore: suspending functions straight onto the kotlinx Semaphore inside.

/**
 * Takes a permit, suspending while there is none: FIFO. Cancellable — a cancelled `acquire()`
 * never ends up holding a permit (one granted in the same instant is released again). Resumes on
 * the caller's dispatcher.
 */
public suspend fun AsyncSemaphore.acquire() {
    delegate.acquire()
}

/** Runs [action] holding a permit and releases it however [action] ends. */
@OptIn(ExperimentalContracts::class)
public suspend inline fun <T> AsyncSemaphore.withPermit(action: () -> T): T {
    contract { callsInPlace(action, InvocationKind.EXACTLY_ONCE) }
    acquire()
    try {
        return action()
    } finally {
        release()
    }
}
