package dev.corobridge.pump;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A log-linear histogram of nanosecond latencies: 8 sub-buckets per power of two, so a
 * percentile is reported as its bucket's upper bound, at most 12.5% above the true value.
 *
 * <p><b>Thread-safety.</b> Single writer (the pump thread) with release stores, so recording costs
 * no atomic read-modify-write; any thread may read. A reader may see a snapshot that is a few
 * samples behind, never a torn count. {@link #record} {@code assert}s that it always runs on the
 * thread that recorded first.
 */
final class LatencyHistogram {

    private static final int SUB_BITS = 3;
    private static final int SUB = 1 << SUB_BITS;
    private static final int BUCKETS = 64 * SUB;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final AtomicLong total = new AtomicLong();
    private final AtomicLong max = new AtomicLong();
    private final SingleThreadCheck writer = new SingleThreadCheck("LatencyHistogram");

    /** Pump thread only. */
    void record(long nanos) {
        assert writer.isOwner() : writer.violation("record()");
        long v = Math.max(0, nanos);
        int i = index(v);
        counts.lazySet(i, counts.get(i) + 1);
        total.lazySet(total.get() + 1);
        if (v > max.get()) {
            max.lazySet(v);
        }
    }

    long count() {
        return total.get();
    }

    long max() {
        return max.get();
    }

    /** The upper bound of the bucket holding the {@code q} quantile (0..1), or 0 with no samples. */
    long percentile(double q) {
        long n = total.get();
        if (n == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * n);
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            seen += counts.get(i);
            if (seen >= rank) {
                return Math.min(upperBound(i), max.get());
            }
        }
        return max.get();
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exp = 63 - Long.numberOfLeadingZeros(v);          // >= SUB_BITS
        int sub = (int) (v >>> (exp - SUB_BITS)) & (SUB - 1);
        return (exp - SUB_BITS + 1) * SUB + sub;
    }

    static long upperBound(int index) {
        if (index < SUB) {
            return index;
        }
        int exp = index / SUB + SUB_BITS - 1;
        int sub = index % SUB;
        long base = 1L << exp;
        long width = 1L << (exp - SUB_BITS);
        return base + (sub + 1) * width - 1;
    }
}
