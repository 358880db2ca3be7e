@file:JvmName("RingFiles")

package dev.corobridge.ring

import dev.corobridge.bridge.await
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.withContext
import java.nio.ByteBuffer
import java.nio.file.OpenOption
import java.nio.file.Path

// The Kotlin face of ring files: suspend functions with the plain verbs that resume on the caller's
// dispatcher. If the calling coroutine is cancelled, the operation is cancelled (see RingOp.cancel);
// one in the kernel's hands is asked to stop, and the function waits (non-cancellably) for its
// completion before rethrowing: the buffer is free when it returns. The Java members ending in
// Async (readAsync, writeAsync, ...) start an operation and return its handle: a different
// operation, for overlapping two calls before two awaits. Closing: RingFile.close() is the blocking
// AutoCloseable close (a member, so it wins over any extension); coroutines use
// closeAsync().await().

/** Opens [path] on this ring (no options: read-only). */
public suspend fun Ring.open(path: Path, vararg options: OpenOption): RingFile = openAsync(path, options.toSet()).awaitIo()

/** Opens [path] on the ring the pool places it on. */
public suspend fun RingPool.open(path: Path, vararg options: OpenOption): RingFile = openAsync(path, options.toSet()).awaitIo()

/** Reads up to `dst.remaining()` bytes at [position]; -1 at end of file. */
public suspend fun RingFile.read(dst: ByteBuffer, position: Long): Int = readAsync(dst, position).awaitIo()

/** Writes at [position]; may be short. */
public suspend fun RingFile.write(src: ByteBuffer, position: Long): Int = writeAsync(src, position).awaitIo()

/** Appends atomically (file opened with APPEND). */
public suspend fun RingFile.append(src: ByteBuffer): Int = appendAsync(src).awaitIo()

/** Reads until [dst] is full or end of file. */
public suspend fun RingFile.readFully(dst: ByteBuffer, position: Long): Int = readFullyAsync(dst, position).awaitIo()

/** Writes all of [src] at [position]. */
public suspend fun RingFile.writeFully(src: ByteBuffer, position: Long): Int = writeFullyAsync(src, position).awaitIo()

/** fsync(2). */
public suspend fun RingFile.fsync() { fsyncAsync().awaitIo() }

/** fdatasync(2). */
public suspend fun RingFile.fdatasync() { fdatasyncAsync().awaitIo() }

/** The current size. */
public suspend fun RingFile.size(): Long = sizeAsync().awaitIo()

/**
 * Awaits a ring operation. If the caller is cancelled, cancels the operation ([RingOp.cancel]): one
 * that had not started, or was undoable, ends at once; one in the kernel's hands is asked to stop,
 * and this waits (non-cancellably) for its completion before rethrowing, so no buffer is in the
 * kernel's hands when this returns. What the operation produced for an awaiter that has left — a
 * file opened, a connection made, a server bound in the same instant the caller was cancelled — is
 * closed, not left open unowned.
 */
public suspend fun <T> RingOp<T>.awaitIo(): T {
    try {
        return await()
    } catch (e: CancellationException) {
        if (!cancel() && !isDone) {
            withContext(NonCancellable) { runCatching { await() } } // the kernel decides: wait for its word
        }
        releaseIfAbandoned()
        throw e
    }
}
