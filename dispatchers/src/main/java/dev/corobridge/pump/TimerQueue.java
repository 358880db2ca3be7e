package dev.corobridge.pump;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The pump's timers: a binary min-heap ordered by due time, then by scheduling order (so timers
 * due at the same instant fire in the order they were scheduled).
 *
 * <p><b>Thread-safety.</b> The heap is confined to the pump thread: {@link #add}, {@link #pollDue}
 * and {@link #abandonAll} run there only (other threads reach {@code add} by posting to the pump).
 * Cancellation ({@link PumpTimer#cancel()}) may come from any thread; it only flips the timer's
 * state and bumps two counters, and the pump drops cancelled entries when it meets them, or purges
 * the heap when they outnumber the live ones (so {@code withTimeout} in a loop cannot grow it).
 * Cancellations from other threads while the pump sleeps would wait for its next iteration, which
 * an idle pump may not have for a long time: each time the count of cancelled entries reaches a
 * power of two from 64 on, the cancelling thread asks the pump to look ({@code purgeRequest}, a
 * nudge), so what cancelled timers hold becomes garbage while the pump is idle too (fewer than 64
 * may wait for the next iteration).
 * The heap's methods {@code assert} that they run on the thread that used the heap first.
 */
final class TimerQueue {

    /** The fewest cancelled entries worth a purge of the heap. */
    private static final int PURGE_MIN = 64;

    private PumpTimer[] heap = new PumpTimer[16];
    private int size;
    private long seq;
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicInteger cancelledInHeap = new AtomicInteger();
    private final SingleThreadCheck confined = new SingleThreadCheck("TimerQueue");
    /** Pump thread: {@link #abandonAll} ran; a timer added later would never be settled. */
    private boolean settled;
    /** Any thread: makes the pump run an iteration, which purges (see the class comment). */
    private final Runnable purgeRequest;

    TimerQueue() {
        this(() -> { });
    }

    TimerQueue(Runnable purgeRequest) {
        this.purgeRequest = purgeRequest;
    }

    /** Any thread: a timer counted as pending from now on; {@link #add} it on the pump thread. */
    PumpTimer newTimer(long due, Runnable action, Runnable onAbandon) {
        pending.incrementAndGet();
        return new PumpTimer(this, due, action, onAbandon);
    }

    /** Pump thread: whether {@link #abandonAll} has run (the pump is terminating: add nothing more). */
    boolean isSettled() {
        assert confined.isOwner() : confined.violation("isSettled()");
        return settled;
    }

    /** Pump thread. */
    void add(PumpTimer t) {
        assert confined.isOwner() : confined.violation("add()");
        if (!t.isPending()) {
            cancelledInHeap.decrementAndGet(); // cancelled before it reached the heap
            return;
        }
        t.seq = seq++;
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        int i = size++;
        heap[i] = t;
        siftUp(i);
    }

    /** Any thread: forgets a timer that never reached the heap (its pump refused the insertion). */
    void discard(PumpTimer t) {
        if (t.tryAbandon()) {
            pending.decrementAndGet();
        }
    }

    /** Called by {@link PumpTimer#cancel()} on any thread. */
    void onCancelled() {
        pending.decrementAndGet();
        int cancelled = cancelledInHeap.incrementAndGet();
        if (cancelled >= PURGE_MIN && (cancelled & (cancelled - 1)) == 0) {
            purgeRequest.run();
        }
    }

    /** Timers that are scheduled and neither fired nor cancelled. Any thread. */
    int pendingCount() {
        return Math.max(0, pending.get());
    }

    /** Pump thread: the due time of the earliest live timer, or {@code Long.MAX_VALUE} if none. */
    long nextDue() {
        assert confined.isOwner() : confined.violation("nextDue()");
        dropCancelledHead();
        return size == 0 ? Long.MAX_VALUE : heap[0].due;
    }

    /** Pump thread: whether a live timer is due at {@code now}. */
    boolean hasDue(long now) {
        assert confined.isOwner() : confined.violation("hasDue()");
        dropCancelledHead();
        return size > 0 && heap[0].due - now <= 0;
    }

    /**
     * Pump thread: removes and returns the next live timer due at {@code now}, already moved to
     * FIRED, or {@code null}.
     */
    PumpTimer pollDue(long now) {
        assert confined.isOwner() : confined.violation("pollDue()");
        while (true) {
            dropCancelledHead();
            if (size == 0 || heap[0].due - now > 0) {
                return null;
            }
            PumpTimer t = removeHead();
            if (t.tryFire()) {
                pending.decrementAndGet();
                return t;
            }
            // Lost to a concurrent cancel between the head check and tryFire: already counted.
            cancelledInHeap.decrementAndGet();
        }
    }

    /** Pump thread: purges cancelled entries once they are the majority. */
    void purgeIfMostlyCancelled() {
        assert confined.isOwner() : confined.violation("purgeIfMostlyCancelled()");
        int cancelled = cancelledInHeap.get();
        if (cancelled < PURGE_MIN || cancelled * 2 < size) {
            return;
        }
        int kept = 0;
        for (int i = 0; i < size; i++) {
            if (heap[i].isPending()) {
                heap[kept++] = heap[i];
            } else {
                cancelledInHeap.decrementAndGet();
            }
        }
        Arrays.fill(heap, kept, size, null);
        size = kept;
        for (int i = (size >>> 1) - 1; i >= 0; i--) {
            siftDown(i);
        }
    }

    /** Pump thread, at termination: moves every live timer to ABANDONED and returns them in order. */
    List<PumpTimer> abandonAll() {
        assert confined.isOwner() : confined.violation("abandonAll()");
        settled = true;
        List<PumpTimer> abandoned = new ArrayList<>();
        PumpTimer t;
        while (size > 0) {
            t = removeHead();
            if (t.tryAbandon()) {
                pending.decrementAndGet();
                abandoned.add(t);
            }
        }
        cancelledInHeap.set(0);
        return abandoned;
    }

    private void dropCancelledHead() {
        while (size > 0 && !heap[0].isPending()) {
            removeHead();
            cancelledInHeap.decrementAndGet();
        }
    }

    private PumpTimer removeHead() {
        PumpTimer head = heap[0];
        int last = --size;
        heap[0] = heap[last];
        heap[last] = null;
        if (size > 0) {
            siftDown(0);
        }
        return head;
    }

    private static boolean less(PumpTimer a, PumpTimer b) {
        long d = a.due - b.due;
        return d < 0 || (d == 0 && a.seq < b.seq);
    }

    private void siftUp(int i) {
        PumpTimer t = heap[i];
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (!less(t, heap[parent])) {
                break;
            }
            heap[i] = heap[parent];
            i = parent;
        }
        heap[i] = t;
    }

    private void siftDown(int i) {
        PumpTimer t = heap[i];
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && less(heap[right], heap[child])) {
                child = right;
            }
            if (!less(heap[child], t)) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = t;
    }
}
