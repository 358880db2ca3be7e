package dev.corobridge.dispatchers.internal

import java.util.concurrent.CompletableFuture
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * The termination of a pump or a ring pool: completed once, by the thread that terminates it, and
 * handed out as copies (callers cannot complete it). [await] returns only after every copy handed
 * out before termination is complete, so a caller that saw `awaitTermination` return may read the
 * outcome from the future it holds at once.
 *
 * Why a latch and not the future itself: the copies are completed by the terminating thread *after*
 * it has woken the future's own waiters, so a waiter could run before its copy was complete. The
 * latch is counted down after [CompletableFuture.complete] returned, that is after every dependent
 * (each copy) has been completed; a copy handed out later is a copy of a completed future.
 *
 * Thread-safety: safe from any thread. Memory effects: everything the terminating thread did before
 * [complete] or [fail] happens-before [await] returns true or false because of termination, and
 * before any copy completes. `internal` (JVM-public, so both packages call it; left out of the API dump).
 */
internal class Termination<T> {
    private val result = CompletableFuture<T>()
    private val settled = CountDownLatch(1)

    @Volatile
    private var terminatingThread: Thread? = null

    /** A future of the outcome that its holder may complete or cancel without affecting anyone. */
    fun copy(): CompletableFuture<T> = result.copy()

    val isDone: Boolean get() = result.isDone

    val isFailed: Boolean get() = result.isCompletedExceptionally

    /** Completes the termination with [value]; false if it was already complete. */
    fun complete(value: T): Boolean = settle { result.complete(value) }

    /** Completes the termination with [error]; false if it was already complete. */
    fun fail(error: Throwable): Boolean = settle { result.completeExceptionally(error) }

    private inline fun settle(outcome: () -> Boolean): Boolean {
        terminatingThread = Thread.currentThread()
        try {
            return outcome()
        } finally {
            settled.countDown()
        }
    }

    /**
     * Waits at most [nanos] for termination: true if it completed with a value, false on timeout or
     * if it failed. Called back from a copy's callback on the terminating thread (which would wait
     * for itself), it does not wait for the other copies.
     */
    @Throws(InterruptedException::class)
    fun await(nanos: Long): Boolean {
        if (Thread.currentThread() === terminatingThread) {
            return result.isDone && !result.isCompletedExceptionally
        }
        if (!settled.await(nanos, TimeUnit.NANOSECONDS)) {
            return false
        }
        return !result.isCompletedExceptionally
    }
}
