package dev.corobridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void bucketsCoverEveryValueWithBoundedError() {
        for (long v : new long[] {0, 1, 7, 8, 9, 15, 16, 17, 1000, 123_456_789L, Long.MAX_VALUE / 3}) {
            int i = LatencyHistogram.index(v);
            long upper = LatencyHistogram.upperBound(i);
            assertTrue(upper >= v, v + " above its bucket's upper bound " + upper);
            assertTrue(upper <= v + v / 8 + 1, v + " bucket too wide: " + upper);
        }
    }

    @Test
    void percentilesAndMax() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 1; i <= 1000; i++) {
            h.record(i * 1000L);
        }
        assertEquals(1000, h.count());
        assertEquals(1_000_000, h.max());
        long p99 = h.percentile(0.99);
        assertTrue(p99 >= 990_000 && p99 <= 990_000 * 1.125, "p99 " + p99);
        long p50 = h.percentile(0.5);
        assertTrue(p50 >= 500_000 && p50 <= 500_000 * 1.125, "p50 " + p50);
        assertEquals(0, new LatencyHistogram().percentile(0.99));
    }
}
