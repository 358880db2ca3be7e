package dev.corobridge.demo.journal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Admits callers into a short critical section until it is closed, and tells when every caller
 * admitted before the close has left: the journal's answer to "an append racing close". An
 * append enters, queues its record and leaves; {@link #close} shuts the door; once
 * {@link #isClosedAndEmpty()} holds, every admitted record is in the queue and no other can arrive,
 * so draining the queue drains every append that will ever be acknowledged.
 *
 * <p><b>Algorithm.</b> One {@link AtomicLong} holds a closed bit and the number of callers inside.
 * {@link #enter()} increments the count by compare-and-set only while the bit is clear, so no caller
 * enters after {@link #close()} has set it; {@link #leave()} decrements. Because the bit and the
 * count live in one word, "closed and nobody inside" is one read, with no window between them.
 *
 * <p><b>Thread-safety and memory effects.</b> Lock-free, any thread. Everything a caller did
 * before {@link #leave()} happens-before the read of {@link #isClosedAndEmpty()} that sees its
 * departure (volatile semantics of the atomic).
 */
final class AdmissionGate {

    private static final long CLOSED = 1L << 62;
    private static final long INSIDE = CLOSED - 1;

    private final AtomicLong state = new AtomicLong();

    /** Enters, unless the gate is closed; a {@code true} must be paired with one {@link #leave()}. */
    boolean enter() {
        for (long s = state.get(); ; s = state.get()) {
            if ((s & CLOSED) != 0) {
                return false;
            }
            if ((s & INSIDE) == INSIDE) {
                throw new IllegalStateException("too many callers inside the gate");
            }
            if (state.compareAndSet(s, s + 1)) {
                return true;
            }
        }
    }

    /** Leaves after a successful {@link #enter()}. */
    void leave() {
        if ((state.getAndDecrement() & INSIDE) == 0) {
            throw new IllegalStateException("leave() without enter()"); // a bug in the caller
        }
    }

    /** Closes the gate; returns {@code true} for the call that closed it. */
    boolean close() {
        return (state.getAndUpdate(s -> s | CLOSED) & CLOSED) == 0;
    }

    /** Whether the gate is closed. */
    boolean isClosed() {
        return (state.get() & CLOSED) != 0;
    }

    /** Whether the gate is closed and every caller admitted before has left. */
    boolean isClosedAndEmpty() {
        return state.get() == CLOSED;
    }
}
