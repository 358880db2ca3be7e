@file:JvmName("AsyncReadWriteMutexes")

package dev.corobridge.sync

import kotlinx.coroutines.CancellableContinuation
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlin.contracts.ExperimentalContracts
import kotlin.contracts.InvocationKind
import kotlin.contracts.contract

// Kotlin face of AsyncReadWriteMutex: a waiting request resumes its coroutine straight from the
// mutex's grant (no Awaitable in between).

/**
 * Takes a read lock, suspending while a writer holds the lock or any request waits (writers are
 * preferred: see [AsyncReadWriteMutex]). Returns the held lock: release it with `unlock()` (or
 * `use { }`), or prefer [withReadLock]. Cancellable — a cancelled `readLock()` never ends up holding
 * the lock (one granted in the same instant is released again and passes on). Resumes on the
 * caller's dispatcher.
 */
public suspend fun AsyncReadWriteMutex.readLock(): AsyncReadWriteMutex.ReadLock =
    tryReadLock() ?: (awaitGrant(write = false) as AsyncReadWriteMutex.ReadLock)

/**
 * Takes the write lock, suspending while anyone holds the lock or any request waits (FIFO among
 * writers). Returns the held lock: release it with `unlock()` (or `use { }`) or `downgrade()` it,
 * or prefer [withWriteLock]. Cancellable like [readLock]. Resumes on the caller's dispatcher.
 */
public suspend fun AsyncReadWriteMutex.writeLock(): AsyncReadWriteMutex.WriteLock =
    tryWriteLock() ?: (awaitGrant(write = true) as AsyncReadWriteMutex.WriteLock)

/** Runs [action] holding a read lock and releases it however [action] ends. */
@OptIn(ExperimentalContracts::class)
public suspend inline fun <T> AsyncReadWriteMutex.withReadLock(action: () -> T): T {
    contract { callsInPlace(action, InvocationKind.EXACTLY_ONCE) }
    val lock = readLock()
    try {
        return action()
    } finally {
        lock.unlock()
    }
}

/**
 * Runs [action] holding the write lock and releases it however [action] ends. To go on reading
 * without letting a writer in, take the lock with [writeLock] and `downgrade()` it.
 */
@OptIn(ExperimentalContracts::class)
public suspend inline fun <T> AsyncReadWriteMutex.withWriteLock(action: () -> T): T {
    contract { callsInPlace(action, InvocationKind.EXACTLY_ONCE) }
    val lock = writeLock()
    try {
        return action()
    } finally {
        lock.unlock()
    }
}

/**
 * Queues a request and suspends until it is granted. The cancellation handler is installed before
 * the request is queued, so a cancellation at any moment either withdraws it from the queue or —
 * if the grant unlinked it first — finds the lock on its way to a cancelled continuation, where
 * the `onCancellation` of `resume` releases it again.
 */
private suspend fun AsyncReadWriteMutex.awaitGrant(write: Boolean): AutoCloseable =
    suspendCancellableCoroutine { cont ->
        val request = ResumeRequest(write, cont)
        cont.invokeOnCancellation { withdraw(request) }
        submit(request)
    }

/** A suspended coroutine's request: the grant resumes it with the held lock. */
private class ResumeRequest(
    write: Boolean,
    private val cont: CancellableContinuation<AutoCloseable>,
) : ReadWriteRequest(write) {

    override fun granted(mutex: AsyncReadWriteMutex) {
        val lock: AutoCloseable = if (write) mutex.heldWrite() else mutex.heldRead()
        // A coroutine cancelled before it resumes does not get the lock: it is released (passed on).
        cont.resume(lock) { _, held, _ -> held.close() }
    }

    override fun toString() = (if (write) "write" else "read") + " lock request of $cont"
}
