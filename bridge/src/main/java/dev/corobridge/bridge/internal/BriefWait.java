package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>What a virtual thread does in a channel operation's blocking {@code join()} before it parks:
 * waits a moment for the other side of the hand-over, which is usually a moment away, because a
 * park costs the partner an unpark and, when the carriers have gone idle, an OS-level wake-up of a
 * carrier. (Only for hand-overs between partners: a waiter among many on a contended lock would
 * only take turns with the others, so those park at once.)
 *
 * <p><b>Algorithm.</b> First {@value #DEFAULT_SPINS} {@link Thread#onSpinWait()} rounds, re-reading
 * the outcome (a partner running on the other carrier finishes within them); then
 * {@link Thread#yield()} until the outcome is there or {@value #DEFAULT_YIELD_NANOS} ns have passed.
 * A yield lets the virtual threads queued on this carrier run first — the partner among them, when
 * the hand-over queued it here — so spinning never keeps a carrier from running the very thread
 * being waited for for longer than the short first phase. Then the caller parks as usual: a wait
 * that lasts costs at most these few microseconds of CPU, once. Platform threads park at once
 * (their park is an OS wait either way; spinning there would take a core from others).
 *
 * <p>Tuning (system properties, read once): {@code corobridge.virtualWait.spins} (default
 * {@value #DEFAULT_SPINS}) and {@code corobridge.virtualWait.yieldNanos} (default
 * {@value #DEFAULT_YIELD_NANOS}); both {@code 0}: park at once.
 *
 * <p><b>Thread-safety.</b> Stateless; reads the awaitable's outcome only. Does not consume an
 * interrupt: the caller's park loop sees it right after.
 */
public final class BriefWait {

    static final int DEFAULT_SPINS = 64;
    static final long DEFAULT_YIELD_NANOS = 5_000;

    private static final int SPINS = Math.max(0, Integer.getInteger("corobridge.virtualWait.spins", DEFAULT_SPINS));
    private static final long YIELD_NANOS = Math.max(0, Long.getLong("corobridge.virtualWait.yieldNanos", DEFAULT_YIELD_NANOS));

    private BriefWait() {
    }

    /**
     * On a virtual thread, waits briefly for {@code a} to be done (see the class comment); on a
     * platform thread returns at once.
     *
     * @return whether {@code a} is done
     */
    public static boolean onVirtualThread(Awaitable<?> a) {
        if (!Thread.currentThread().isVirtual()) {
            return a.isDone();
        }
        for (int i = 0; i < SPINS; i++) {
            if (a.isDone()) {
                return true;
            }
            Thread.onSpinWait();
        }
        long deadline = System.nanoTime() + YIELD_NANOS;
        while (!a.isDone()) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.yield();
        }
        return true;
    }
}
