@file:JvmName("AsyncReadWriteMutexes")

package dev.corobridge.sync

import kotlin.coroutines.CoroutineContext
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
    tryReadLock() ?: awaitRead()

/**
 * Takes the write lock, suspending while anyone holds the lock or any request waits (FIFO among
 * writers). Returns the held lock: release it with `unlock()` (or `use { }`) or `downgrade()` it,
 * or prefer [withWriteLock]. Cancellable like [readLock]. Resumes on the caller's dispatcher.
 */
public suspend fun AsyncReadWriteMutex.writeLock(): AsyncReadWriteMutex.WriteLock =
    tryWriteLock() ?: awaitWrite()

/** Runs [action] holding a read lock and releases it however [action] ends. */
@OptIn(ExperimentalContracts::class)
public suspend inline fun <T> AsyncReadWriteMutex.withReadLock(action: () -> T): T {
    contract { callsInPlace(action, InvocationKind.EXACTLY_ONCE) }
    acquireReadHold()
    try {
        return action()
    } finally {
        releaseReadHold()
    }
}

/**
 * Runs [action] holding the write lock and releases it however [action] ends. To go on reading
 * without letting a writer in, take the lock with [writeLock] and `downgrade()` it.
 */
@OptIn(ExperimentalContracts::class)
public suspend inline fun <T> AsyncReadWriteMutex.withWriteLock(action: () -> T): T {
    contract { callsInPlace(action, InvocationKind.EXACTLY_ONCE) }
    acquireWriteHold()
    try {
        return action()
    } finally {
        releaseWriteHold()
    }
}

// withReadLock {} and withWriteLock {} never show their hold to the caller, so they take it
// without a handle (no object and no release flag per lock: the `finally` releases exactly once).
// Their inlined bodies call these, which are part of the binary API for that reason only, and
// synthetic: Java code cannot call them (it has the handles).

/**
 * Takes a read hold without a handle, suspending like [readLock]. For [withReadLock] only; the
 * result means nothing (`Any?`, not `Unit`: a `Unit` function ending in a call of a generic one is
 * no tail call, and the compiler would give it a state machine, an object per wait).
 */
@PublishedApi
@JvmSynthetic
internal suspend fun AsyncReadWriteMutex.acquireReadHold(): Any? {
    if (tryAcquireRead()) return Unit
    return awaitHold(false)
}

/** Takes the write hold without a handle, suspending like [writeLock]. For [withWriteLock] only (see [acquireReadHold]). */
@PublishedApi
@JvmSynthetic
internal suspend fun AsyncReadWriteMutex.acquireWriteHold(): Any? {
    if (tryAcquireWrite()) return Unit
    return awaitHold(true)
}

/** Releases a read hold taken by [acquireReadHold], as a handle's first `unlock()` would. For [withReadLock] only. */
@PublishedApi
@JvmSynthetic
internal fun AsyncReadWriteMutex.releaseReadHold(): Unit = releaseRead()

/** Releases the write hold taken by [acquireWriteHold]. For [withWriteLock] only. */
@PublishedApi
@JvmSynthetic
internal fun AsyncReadWriteMutex.releaseWriteHold(): Unit = releaseWrite()

// readLock(), writeLock() and the acquires above end in a tail call of these (no cast after it), so
// the compiler gives them no state machine of their own: a lock taken at once allocates only its
// handle, or nothing.

/** Queues a read request and suspends until it is granted ([ResumeRequest]). */
private suspend fun AsyncReadWriteMutex.awaitRead(): AsyncReadWriteMutex.ReadLock =
    suspendCancellableCoroutine { cont -> ResumeRequest(this, false, cont).submit() }

/** Queues a write request and suspends until it is granted ([ResumeRequest]). */
private suspend fun AsyncReadWriteMutex.awaitWrite(): AsyncReadWriteMutex.WriteLock =
    suspendCancellableCoroutine { cont -> ResumeRequest(this, true, cont).submit() }

/** Queues a request for a hold without a handle and suspends until it is granted ([HoldRequest]). */
private suspend fun AsyncReadWriteMutex.awaitHold(write: Boolean): Any? =
    suspendCancellableCoroutine { cont -> HoldRequest(this, write, cont).submit() }

/**
 * A suspended coroutine's request. It is also the coroutine's cancellation handler (one object per
 * wait). The handler is installed before the request is queued, and the request is withdrawn again
 * when the coroutine was cancelled by then (the handler found nothing queued), so a cancellation at
 * any moment either withdraws it from the queue or — if the grant unlinked it first — finds the lock
 * on its way to a cancelled continuation, where the `onCancellation` of `resume` releases it again.
 * What the grant resumes the coroutine with is the subclass's.
 */
private abstract class CoroutineRequest<V>(
    protected val mutex: AsyncReadWriteMutex,
    write: Boolean,
    protected val cont: CancellableContinuation<V>,
) : ReadWriteRequest(write), (Throwable?) -> Unit {

    fun submit() {
        cont.invokeOnCancellation(this)
        mutex.submit(this)
        // A cancellation before the request was queued (a coroutine cancelled already when it asks,
        // whose handler runs inside invokeOnCancellation) found nothing to withdraw: withdraw it now
        // (a no-op if it was granted, or withdrawn by the handler meanwhile).
        if (cont.isCancelled) mutex.withdraw(this)
    }

    /** The coroutine was cancelled: withdraw the request (no-op if it was granted first). */
    override fun invoke(cause: Throwable?) {
        mutex.withdraw(this)
    }

    override fun toString() = (if (write) "write" else "read") + " lock request of $cont"
}

/** [readLock] / [writeLock]: the grant resumes the coroutine with the held lock's handle. */
private class ResumeRequest<L : AutoCloseable>(
    mutex: AsyncReadWriteMutex,
    write: Boolean,
    cont: CancellableContinuation<L>,
) : CoroutineRequest<L>(mutex, write, cont) {

    override fun granted(mutex: AsyncReadWriteMutex) {
        @Suppress("UNCHECKED_CAST")
        val lock = (if (write) mutex.heldWrite() else mutex.heldRead()) as L
        // A coroutine cancelled before it resumes does not get the lock: it is released (passed on).
        cont.resume(lock) { _, held, _ -> held.close() }
    }
}

/**
 * [withReadLock] / [withWriteLock]: a hold without a handle; the grant resumes the coroutine with
 * `Unit`. The request is also its resume's `onCancellation`, which releases the hold if the
 * coroutine was cancelled before it resumed (one object per wait, as with a handle).
 */
private class HoldRequest(
    mutex: AsyncReadWriteMutex,
    write: Boolean,
    cont: CancellableContinuation<Any?>,
) : CoroutineRequest<Any?>(mutex, write, cont), (Throwable, Any?, CoroutineContext) -> Unit {

    override fun granted(mutex: AsyncReadWriteMutex) {
        // Typed, so that resume() takes this as its three-argument onCancellation: as a
        // (Throwable?) -> Unit (the cancellation handler) it would match the old one-argument
        // overload, which would call invoke(cause) — a withdraw, not a release.
        val release: (Throwable, Any?, CoroutineContext) -> Unit = this
        cont.resume(Unit, release)
    }

    /** The grant reached a cancelled coroutine: the hold is nobody's, so it is released (passed on). */
    override fun invoke(cause: Throwable, value: Any?, context: CoroutineContext) {
        if (write) mutex.releaseWrite() else mutex.releaseRead()
    }
}
