package dev.corobridge.pump;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The admission word of a pump's queues: whether producers may still enqueue, and how many are in
 * the middle of an enqueue, in one {@code int}. Terminating pumps close it, so that after the close
 * nothing is enqueued that the pump would never run, and the one drain that follows sees every item
 * that was admitted.
 *
 * <p><b>Algorithm.</b> Bit 30 ({@code CLOSED}) closes admission; the bits below it count producers
 * between {@link #enter()} and {@link #exit()}. A producer increments the word; if {@code CLOSED} was
 * set, it decrements again and is refused, otherwise it enqueues and then decrements. {@link #close()}
 * sets {@code CLOSED} (once, by compare-and-set) and then spins until the count is zero: from then on
 * no admitted enqueue is still in progress and no new one can start. The spin is short: a producer
 * holds its count only for a queue offer, a few instructions.
 *
 * <p><b>Memory effects.</b> Every step is a volatile read-modify-write of the word, so an enqueue
 * admitted before {@code CLOSED} was set <i>happens-before</i> {@link #close()} returns: the closer's
 * drain sees it.
 *
 * <p><b>Thread-safety.</b> {@link #enter()} and {@link #exit()} from any thread; {@link #close()} from
 * any thread, idempotently (in practice the pump thread, or the caller terminating a pump whose loop
 * never started). It extends {@code AtomicInteger} only so that the pump's hot path reaches the word
 * with the same single field load as before this class existed: package-private, never handed out.
 */
@SuppressWarnings("serial") // never serialised: package-private, held by one pump
final class PumpAdmission extends AtomicInteger {

    /** This bit closes admission; the low bits count producers mid-enqueue. */
    private static final int CLOSED = 1 << 30;

    /**
     * Any thread: announces an enqueue. Returns {@code false} if admission is closed (nothing to
     * undo then); otherwise the caller enqueues and must call {@link #exit()}, also if the enqueue
     * throws.
     */
    boolean enter() {
        if ((getAndIncrement() & CLOSED) != 0) {
            getAndDecrement();
            return false;
        }
        return true;
    }

    /** Any thread: ends an enqueue that {@link #enter()} admitted. */
    void exit() {
        getAndDecrement();
    }

    /** Closes admission and waits out the producers mid-enqueue. Idempotent. */
    void close() {
        int w;
        while (((w = get()) & CLOSED) == 0 && !compareAndSet(w, w | CLOSED)) {
            Thread.onSpinWait(); // producers entering or leaving: retry with the new count
        }
        while ((get() & ~CLOSED) != 0) {
            Thread.onSpinWait(); // producers mid-post: a few instructions away from done
        }
    }

    /** Whether {@link #close()} has been called. */
    boolean isClosed() {
        return (get() & CLOSED) != 0;
    }
}
