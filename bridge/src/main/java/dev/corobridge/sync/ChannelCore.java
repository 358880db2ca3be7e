package dev.corobridge.sync;

import dev.corobridge.stream.Next;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import kotlinx.coroutines.channels.ClosedReceiveChannelException;
import kotlinx.coroutines.channels.ClosedSendChannelException;

/**
 * The algorithm of {@link AsyncChannel}: a FIFO buffer of up to {@code capacity} elements (none
 * for a rendezvous channel) and two FIFO queues of waiting operations, senders and receivers,
 * whose nodes are the waiting operations themselves ({@link ChannelWaiter}).
 *
 * <h2>Implementation overview</h2>
 * One lock (the core's monitor) guards the buffer, both queues and the closed state; it is held
 * for a few field writes only, never while a waiter is completed. Invariants under the lock:
 * receivers wait only while the buffer is empty and no sender waits; senders wait only while the
 * buffer is full. So a send hands its element to the first waiting receiver, else buffers it,
 * else waits; a receive takes the oldest buffered element (and moves the first waiting sender's
 * element into the freed slot), else the first waiting sender's element, else waits. A waiter is
 * completed by the one party that took it out of its queue under the lock — a matching operation,
 * {@link #close}/{@link #cancel}, or a {@link #withdraw} (the waiter's own cancellation) — after
 * the lock is released: exactly once, and a withdrawal succeeds only while nothing matched it, so
 * a withdrawn send is never delivered and a withdrawn receive took nothing.
 *
 * <p>Close keeps the buffer and the waiting senders (their elements were sent before the close:
 * receivers drain them) and ends the waiting receivers; cancel also discards the buffer and ends
 * the waiting senders. The close cause is what ended operations throw: the first close's (a plain
 * close makes them throw kotlinx's {@code Closed…ChannelException}), replaced by the cancel's
 * {@code CancellationException} once the channel is cancelled, also after a close: a cancel breaks
 * the close's promise that receivers drain what was sent, so every operation it ends, and every
 * later one, is cancelled rather than failed. (kotlinx keeps the first close's cause.)
 *
 * <p><b>Memory effects.</b> Everything is published under the lock: actions before a send
 * happen-before actions after the receive of that element; a waiter's {@link ChannelWaiter#item}
 * written under the lock is read by the party completing it after the lock.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread. Elements are never {@code null}.
 */
final class ChannelCore<E> {

    /** {@link ChannelWaiter#complete} kinds, and results of {@link #send}/{@link #receive}/{@link #offer}. */
    static final int VALUE = 0;
    static final int CLOSED = 1;
    static final int WITHDRAWN = 2;
    /** {@link #send}/{@link #receive}: the waiter was queued. {@link #offer}: the buffer is full. */
    static final int WAIT = 3;

    /** {@link #poll()}: no element ready. */
    static final Object EMPTY = new Object() {
        @Override
        public String toString() {
            return "EMPTY";
        }
    };

    /** {@link #poll()}: closed and drained. */
    static final Object ENDED = new Object() {
        @Override
        public String toString() {
            return "ENDED";
        }
    };

    /** The {@link ChannelWaiter#prev} of the first waiter of a queue (non-null: "queued"). */
    static final ChannelWaiter FIRST = new ChannelWaiter() {
        @Override
        protected boolean isSender() {
            return false;
        }

        @Override
        protected void complete(int kind) {
            throw new AssertionError("marker");
        }
    };

    private static final Object[] NO_BUFFER = {};
    private static final VarHandle SPARE;

    static {
        try {
            SPARE = MethodHandles.lookup().findVarHandle(ChannelCore.class, "spare", ChannelWaiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    private static final String CLOSED_MESSAGE = "Channel was closed";

    private final int capacity;

    // Guarded by this.
    private Object[] buffer = NO_BUFFER;
    private int head;
    private int size;
    private final WaiterQueue senders = new WaiterQueue();
    private final WaiterQueue receivers = new WaiterQueue();
    private boolean closed;
    private boolean cancelled;
    /** Written once, under the lock, when {@link #closed} is set; read by completions after it. */
    private Throwable closeCause;

    /** An idle Kotlin-face waiter kept for the next wait on this channel (see {@link #takeSpare}). */
    @SuppressWarnings("unused")
    private volatile ChannelWaiter spare;

    ChannelCore(int capacity) {
        this.capacity = capacity;
    }

    // ------------------------------------------------------------------ without waiting

    /** Sends now if possible: {@link #VALUE} (sent), {@link #WAIT} (would wait) or {@link #CLOSED}. */
    int offer(E element) {
        ChannelWaiter receiver;
        synchronized (this) {
            if (closed) {
                return CLOSED;
            }
            receiver = receivers.first();
            if (receiver == null) {
                if (size < capacity) {
                    enqueueElement(element);
                    return VALUE;
                }
                return WAIT;
            }
            receivers.removeFirst();
            receiver.item = element;
        }
        receiver.complete(VALUE);
        return VALUE;
    }

    /** Receives now if possible: the element, {@link #EMPTY} (would wait) or {@link #ENDED}. */
    Object poll() {
        Object element;
        ChannelWaiter sender;
        synchronized (this) {
            sender = senders.first();
            if (size > 0) {
                element = dequeueElement();
                if (sender != null) {
                    senders.removeFirst();
                    enqueueElement(sender.item);
                    sender.item = null;
                }
            } else if (sender != null) {
                senders.removeFirst();
                element = sender.item;
                sender.item = null;
            } else {
                return closed ? ENDED : EMPTY;
            }
        }
        if (sender != null) {
            sender.complete(VALUE);
        }
        return element;
    }

    // ------------------------------------------------------------------ with a waiter

    /**
     * Sends {@code waiter}'s {@link ChannelWaiter#item}: {@link #VALUE} (sent now), {@link #CLOSED},
     * or {@link #WAIT} (queued: it will be completed once).
     */
    int send(ChannelWaiter waiter) {
        ChannelWaiter receiver;
        synchronized (this) {
            if (closed) {
                return CLOSED;
            }
            receiver = receivers.first();
            if (receiver == null) {
                if (size < capacity) {
                    enqueueElement(waiter.item);
                    waiter.item = null;
                    return VALUE;
                }
                senders.add(waiter);
                return WAIT;
            }
            receivers.removeFirst();
            receiver.item = waiter.item;
            waiter.item = null;
        }
        receiver.complete(VALUE);
        return VALUE;
    }

    /**
     * Receives into {@code waiter}'s {@link ChannelWaiter#item}: {@link #VALUE} (received now),
     * {@link #CLOSED} (closed and drained), or {@link #WAIT} (queued: it will be completed once).
     */
    int receive(ChannelWaiter waiter) {
        ChannelWaiter sender;
        synchronized (this) {
            sender = senders.first();
            if (size > 0) {
                waiter.item = dequeueElement();
                if (sender == null) {
                    return VALUE;
                }
                senders.removeFirst();
                enqueueElement(sender.item);
            } else if (sender != null) {
                senders.removeFirst();
                waiter.item = sender.item;
            } else if (closed) {
                return CLOSED;
            } else {
                receivers.add(waiter);
                return WAIT;
            }
            sender.item = null;
        }
        sender.complete(VALUE);
        return VALUE;
    }

    /**
     * Takes a queued {@code waiter} out of its queue: {@code true} if it was still waiting (the
     * caller then completes it with {@link #WITHDRAWN}), {@code false} if it was already matched,
     * closed or withdrawn (whoever took it out completes it).
     */
    boolean withdraw(ChannelWaiter waiter) {
        synchronized (this) {
            if (waiter.prev == null || !waiter.mayWithdraw()) {
                return false;
            }
            (waiter.isSender() ? senders : receivers).remove(waiter);
            return true;
        }
    }

    // ------------------------------------------------------------------ recycling

    /**
     * The idle waiter kept by {@link #putSpare}, or {@code null}; the caller owns it. A waiter is
     * not queued while it is spare; the exchange is atomic (each spare is taken once) and
     * publishes the fields the putting thread reset.
     */
    ChannelWaiter takeSpare() {
        return spare == null ? null : (ChannelWaiter) SPARE.getAndSet(this, null);
    }

    /** Keeps an idle waiter of this core for the next wait, unless one is kept already. */
    void putSpare(ChannelWaiter waiter) {
        SPARE.compareAndSet(this, null, waiter);
    }

    // ------------------------------------------------------------------ close and cancel

    /** Closes for sending; ends the waiting receivers. {@code true} if this call closed it. */
    boolean close(Throwable cause) {
        ChannelWaiter ended;
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
            closeCause = cause;
            ended = receivers.removeAll();
        }
        completeAll(ended, CLOSED);
        return true;
    }

    /**
     * Closes with {@code cause} (replacing an earlier close's cause), discards the buffer and ends
     * every waiting sender and receiver. {@code true} if this call cancelled it.
     */
    boolean cancel(CancellationException cause) {
        ChannelWaiter endedSenders;
        ChannelWaiter endedReceivers;
        synchronized (this) {
            if (cancelled) {
                return false;
            }
            cancelled = true;
            closed = true;
            closeCause = cause; // also after a close: what is pending or comes later is cancelled
            buffer = NO_BUFFER;
            head = 0;
            size = 0;
            endedSenders = senders.removeAll();
            endedReceivers = receivers.removeAll();
        }
        completeAll(endedReceivers, CLOSED);
        completeAll(endedSenders, CLOSED);
        return true;
    }

    // ------------------------------------------------------------------ state

    /** The close cause, {@code null} for a plain close (or while open). Read after a {@link #CLOSED}. */
    synchronized Throwable closeCause() {
        return closeCause;
    }

    synchronized boolean isClosedForSend() {
        return closed;
    }

    synchronized boolean isClosedForReceive() {
        return closed && size == 0 && senders.isEmpty();
    }

    /** No element buffered nor waiting to be sent, and not closed (kotlinx's {@code isEmpty}). */
    synchronized boolean isEmpty() {
        return !closed && size == 0 && senders.isEmpty();
    }

    /** What a send on the closed channel throws. */
    Throwable sendException() {
        Throwable cause = closeCause();
        return cause != null ? cause : new ClosedSendChannelException(CLOSED_MESSAGE);
    }

    /** What a receive on the closed and drained channel throws. */
    Throwable receiveException() {
        Throwable cause = closeCause();
        return cause != null ? cause : new ClosedReceiveChannelException(CLOSED_MESSAGE);
    }

    /** What {@code next} returns on the closed and drained channel. */
    <T> Next<T> end() {
        return nextOfClose(closeCause());
    }

    /** The end as a {@link Next}: the normal end, the cancellation, or the failure. */
    static <T> Next<T> nextOfClose(Throwable cause) {
        if (cause == null) {
            return new Next.End<>(null);
        }
        if (cause instanceof CancellationException c) {
            return new Next.End<>(c);
        }
        return new Next.Failed<>(cause);
    }

    // ------------------------------------------------------------------ under the lock

    private void enqueueElement(Object element) {
        Object[] b = buffer;
        if (size == b.length) {
            b = grow();
        }
        int tail = head + size;
        if (tail >= b.length) {
            tail -= b.length;
        }
        b[tail] = element;
        size++;
    }

    private Object dequeueElement() {
        Object[] b = buffer;
        Object element = b[head];
        b[head] = null;
        head = head + 1 == b.length ? 0 : head + 1;
        size--;
        return element;
    }

    /** A buffer twice as long (at most the capacity), the elements from index 0. */
    private Object[] grow() {
        Object[] old = buffer;
        int length = (int) Math.min(capacity, Math.max(4L, 2L * old.length));
        Object[] b = new Object[length];
        for (int i = 0; i < size; i++) {
            int j = head + i;
            b[i] = old[j >= old.length ? j - old.length : j];
        }
        buffer = b;
        head = 0;
        return b;
    }

    // ------------------------------------------------------------------ outside the lock

    /** Completes a detached chain (owned by the caller now: nothing else touches its links). */
    private static void completeAll(ChannelWaiter first, int kind) {
        ChannelWaiter w = first;
        while (w != null) {
            ChannelWaiter next = w.next;
            w.next = null;
            if (w.isSender()) {
                w.item = null;
            }
            w.complete(kind);
            w = next;
        }
    }
}
