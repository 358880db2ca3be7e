package dev.corobridge.sync;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.internal.OutcomeCell;

/**
 * A Java caller's wait for the read or the write lock of an {@link AsyncReadWriteMutex}: the
 * awaitable that {@code readLockAsync()} / {@code writeLockAsync()} return, completed with the
 * held lock.
 *
 * <p><b>Cancellation decides at once</b>, as for the other permit waits ({@code AsyncMutex},
 * {@code AsyncSemaphore}): {@code cancel()} settles the outcome as cancelled and then withdraws the
 * request from the queue. If the mutex granted the request at the same instant — the grant
 * unlinked it first — the grant finds the outcome decided and releases the lock again, which
 * passes it on in queue order. So {@code cancel()} returns {@code true} exactly when the caller
 * does not hold the lock, and a cancelled wait never holds or leaks it.
 */
final class ReadWriteWait<H> extends OutcomeCell<H> {

    private final AsyncReadWriteMutex mutex;
    final ReadWriteRequest request;

    ReadWriteWait(AsyncReadWriteMutex mutex, boolean write) {
        this.mutex = mutex;
        this.request = new ReadWriteRequest(write) {
            @Override
            @SuppressWarnings("unchecked")
            void granted(AsyncReadWriteMutex m) {
                AutoCloseable lock = write ? m.heldWrite() : m.heldRead();
                if (!decide(new Outcome.Success<>((H) lock))) {
                    // Cancelled while the grant was on its way: not the caller's, so passed on.
                    if (write) {
                        ((AsyncReadWriteMutex.WriteLock) lock).unlock();
                    } else {
                        ((AsyncReadWriteMutex.ReadLock) lock).unlock();
                    }
                }
            }

            @Override
            public String toString() {
                return ReadWriteWait.this.toString();
            }
        };
    }

    @Override
    protected void onDecided(Outcome<H> outcome) {
        if (outcome instanceof Outcome.Cancelled) {
            mutex.withdraw(request); // no-op if the grant unlinked it first: that grant releases the lock
        }
    }

    @Override
    public String toString() {
        return (request.write ? "write" : "read") + " lock of " + mutex + stateSuffix();
    }

    private String stateSuffix() {
        Outcome<H> o = outcomeOrNull();
        return o == null ? "[pending]" : "[" + o + "]";
    }
}
