package dev.corobridge.pump;

import java.time.Duration;

/**
 * How a pump turns a {@link Duration} into nanoseconds on its clock: saturating, never overflowing.
 * Deadlines are computed as {@code now + nanos} and compared by difference (as {@code nanoTime}
 * values must be), so every duration is clamped to {@link #MAX_DELAY_NANOS}, half the {@code long}
 * range: the sum then cannot wrap past a comparison.
 *
 * <p><b>Thread-safety.</b> Stateless.
 */
final class PumpDurations {

    /** Longest delay honoured; longer delays are clamped (about 146 years). */
    static final long MAX_DELAY_NANOS = Long.MAX_VALUE / 2;

    private PumpDurations() {
    }

    /** {@code d} in nanoseconds, at most {@link #MAX_DELAY_NANOS} (also for durations too long for a {@code long}). */
    static long saturatedNanos(Duration d) {
        try {
            return Math.min(d.toNanos(), MAX_DELAY_NANOS);
        } catch (ArithmeticException e) {
            return MAX_DELAY_NANOS;
        }
    }

    /** A delay in nanoseconds clamped to {@code 0..}{@link #MAX_DELAY_NANOS}. */
    static long clampDelay(long nanos) {
        return Math.min(Math.max(0, nanos), MAX_DELAY_NANOS);
    }
}
