package dev.corobridge.sync;

/**
 * A request for the read or the write lock of an {@link AsyncReadWriteMutex} that had to wait: a
 * node of the mutex's FIFO queue. The links and the {@code queued} flag are read and written only
 * while holding the mutex's guard; {@code queued} is what decides between a grant and a withdrawal
 * (both take the guard, and whichever unlinks the node first wins).
 *
 * <p>What a grant means to the waiter is the subclass's: the Java face completes its awaitable
 * ({@link ReadWriteWait}), the Kotlin face resumes its coroutine. Either way {@link #granted} runs
 * after the guard is released, exactly once, and must hand the lock to the waiter or, if the
 * waiter gave up in the meantime, release it again (the release passes it on).
 */
abstract class ReadWriteRequest {

    /** Whether this asks for the write lock (else the read lock). */
    final boolean write;

    /** Queue links (guarded); after a grant {@code next} chains the requests to deliver. */
    ReadWriteRequest prev;
    ReadWriteRequest next;

    /** Whether the node is in the queue (guarded). */
    boolean queued;

    ReadWriteRequest(boolean write) {
        this.write = write;
    }

    /**
     * The mutex granted this request: the lock is held on the waiter's behalf. Runs once, outside
     * the guard; must deliver the lock, or release it if the waiter is gone. Must not throw.
     */
    abstract void granted(AsyncReadWriteMutex mutex);
}
