package dev.corobridge.sync;

/**
 * A send or receive waiting in a {@link ChannelCore}: at once the node of the core's queue of
 * waiting senders or receivers (no separate node is allocated) and the operation that the core
 * completes. The Java face's {@link ChannelOperation} and the Kotlin face's suspended call extend it.
 *
 * <p><b>Thread-safety.</b> {@link #prev}, {@link #next} and {@link #item} are guarded by the
 * core's lock while the waiter is queued; whoever takes it out of the queue (a matching party, a
 * close, a withdrawal) owns it and calls {@link #complete} exactly once, outside the lock.
 */
abstract class ChannelWaiter {

    /** The previous waiter, {@link ChannelCore#FIRST} for the first one, {@code null} when not queued. */
    ChannelWaiter prev;

    /** The next waiter in the queue, {@code null} for the last one. */
    ChannelWaiter next;

    /**
     * A sender's element (until it is taken); a receiver's element once matched; the cause of a
     * withdrawal ({@link ChannelCore#WITHDRAWN}).
     */
    Object item;

    /** Whether this waits to send (else to receive). */
    protected abstract boolean isSender();

    /**
     * Asked under the core's lock by {@link ChannelCore#withdraw} before it takes this queued
     * waiter out: whether a withdrawal is still wanted ({@code true} by default; a recycled Kotlin
     * waiter refuses one asked by the job of an earlier use).
     */
    protected boolean mayWithdraw() {
        return true;
    }

    /**
     * Completes the operation: {@link ChannelCore#VALUE} (a receiver's element is in {@link #item};
     * a sender's element was taken), {@link ChannelCore#CLOSED} (see {@link ChannelCore#closeCause()})
     * or {@link ChannelCore#WITHDRAWN}. Called once, by the party that took the waiter out of the
     * queue, never under the core's lock. Must not throw.
     */
    protected abstract void complete(int kind);
}
