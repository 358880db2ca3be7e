package dev.corobridge.sync;

/**
 * One FIFO queue of waiting channel operations (a {@link ChannelCore} has one for senders and one
 * for receivers): a doubly linked list through {@link ChannelWaiter#prev} and
 * {@link ChannelWaiter#next}, where the first waiter's {@code prev} is {@link ChannelCore#FIRST}
 * and a waiter that is in no queue has {@code prev == null} (how {@code withdraw} tells a queued
 * waiter from one already taken out).
 *
 * <p>Not thread-safe: every method runs under the owning {@link ChannelCore}'s lock, which also
 * publishes the links to whoever takes a waiter out.
 */
final class WaiterQueue {

    private ChannelWaiter first;
    private ChannelWaiter last;

    /** The first waiter, or {@code null}. */
    ChannelWaiter first() {
        return first;
    }

    boolean isEmpty() {
        return first == null;
    }

    /** Queues {@code waiter} last. */
    void add(ChannelWaiter waiter) {
        if (first == null) {
            waiter.prev = ChannelCore.FIRST;
            first = waiter;
        } else {
            waiter.prev = last;
            last.next = waiter;
        }
        last = waiter;
    }

    /** Takes the {@link #first()} waiter (there is one) out of the queue. */
    void removeFirst() {
        ChannelWaiter waiter = first;
        ChannelWaiter next = waiter.next;
        first = next;
        if (next == null) {
            last = null;
        } else {
            next.prev = ChannelCore.FIRST;
        }
        waiter.prev = null;
        waiter.next = null;
    }

    /** Takes the queued {@code waiter} out of the queue, wherever it is. */
    void remove(ChannelWaiter waiter) {
        ChannelWaiter prev = waiter.prev;
        ChannelWaiter next = waiter.next;
        if (prev == ChannelCore.FIRST) {
            first = next;
        } else {
            prev.next = next;
        }
        if (next == null) {
            last = prev == ChannelCore.FIRST ? null : prev;
        } else {
            next.prev = prev;
        }
        waiter.prev = null;
        waiter.next = null;
    }

    /**
     * Empties the queue and marks every waiter of it as no longer queued; returns them as a chain
     * linked by {@code next}, first to last ({@code null} if it was empty).
     */
    ChannelWaiter removeAll() {
        ChannelWaiter chain = first;
        for (ChannelWaiter w = chain; w != null; w = w.next) {
            w.prev = null;
        }
        first = null;
        last = null;
        return chain;
    }
}
