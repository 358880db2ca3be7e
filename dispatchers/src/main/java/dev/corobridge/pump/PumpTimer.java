package dev.corobridge.pump;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A handle to work scheduled on a pump's timers ({@link MessagePump#schedule}, and the
 * {@code delay}/{@code withTimeout} of coroutines on the pump dispatcher).
 *
 * <p><b>States.</b> {@code PENDING} until exactly one of: it fires ({@code FIRED}), it is
 * {@link #cancel() cancelled} ({@code CANCELLED}), or the pump terminates before it is due
 * ({@code ABANDONED}; counted in the {@link ShutdownReport}, and coroutine timers are handed to the
 * fallback path instead of being dropped). One compare-and-set decides; the losers do nothing.
 *
 * <p><b>Thread-safety.</b> {@link #cancel()} and the queries are safe from any thread. The action
 * runs on the pump thread.
 */
public final class PumpTimer {

    /** The lifecycle of a timer. */
    public enum State { PENDING, FIRED, CANCELLED, ABANDONED }

    private static final int PENDING = 0;
    private static final int FIRED = 1;
    private static final int CANCELLED = 2;
    private static final int ABANDONED = 3;

    final long due;
    /** Tie-breaker among equal due times; assigned on the pump thread when added to the heap. */
    long seq;
    final Runnable action;
    /** Run on the pump thread if the pump terminates first; {@code null}: count it as abandoned. */
    final Runnable onAbandon;
    private final TimerQueue owner;
    private final AtomicInteger state = new AtomicInteger(PENDING);

    PumpTimer(TimerQueue owner, long due, Runnable action, Runnable onAbandon) {
        this.owner = owner;
        this.due = due;
        this.action = action;
        this.onAbandon = onAbandon;
    }

    /**
     * Cancels the timer if it has not fired yet. Returns {@code true} if this call cancelled it.
     * A cancelled timer never runs; its slot is reclaimed lazily by the pump.
     */
    public boolean cancel() {
        if (state.compareAndSet(PENDING, CANCELLED)) {
            owner.onCancelled();
            return true;
        }
        return false;
    }

    /** The current state. */
    public State getState() {
        return State.values()[state.get()];
    }

    /** Whether it is still waiting to fire. */
    public boolean isPending() {
        return state.get() == PENDING;
    }

    boolean tryFire() {
        return state.compareAndSet(PENDING, FIRED);
    }

    boolean tryAbandon() {
        return state.compareAndSet(PENDING, ABANDONED);
    }

    @Override
    public String toString() {
        return "PumpTimer[" + getState() + ", " + action + "]";
    }
}
