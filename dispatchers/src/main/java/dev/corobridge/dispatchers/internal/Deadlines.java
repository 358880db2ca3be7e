package dev.corobridge.dispatchers.internal;

import java.time.Duration;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>How the pump and the ring pool turn a {@link Duration} into nanoseconds for a deadline:
 * saturating, never overflowing. Deadlines are computed as {@code nanoTime() + nanos} and compared
 * by difference (as {@code nanoTime} values must be), so every duration is clamped to
 * {@link #MAX_NANOS}, half the {@code long} range (about 146 years): the sum then cannot wrap past
 * a comparison, and a longer duration is a deadline that never comes.
 *
 * <p><b>Thread-safety.</b> Stateless.
 */
public final class Deadlines {

    /** Longest duration honoured, in nanoseconds; longer ones are clamped to it. */
    public static final long MAX_NANOS = Long.MAX_VALUE / 2;

    private Deadlines() {
    }

    /** {@code d} in nanoseconds, at most {@link #MAX_NANOS} (also for durations too long for a {@code long}). */
    public static long saturatedNanos(Duration d) {
        try {
            return Math.min(d.toNanos(), MAX_NANOS);
        } catch (ArithmeticException e) {
            return MAX_NANOS;
        }
    }

    /** A delay in nanoseconds clamped to {@code 0..}{@link #MAX_NANOS}. */
    public static long clampNanos(long nanos) {
        return Math.min(Math.max(0, nanos), MAX_NANOS);
    }
}
