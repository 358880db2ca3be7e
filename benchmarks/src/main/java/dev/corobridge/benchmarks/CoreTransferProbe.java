package dev.corobridge.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * How long a cache line takes to go from one core to the other and back, measured now: two
 * threads hand a counter back and forth through one volatile field for a few milliseconds, and the
 * probe returns the nanoseconds per round trip.
 *
 * <p>Why a benchmark needs it: on a virtual machine the host decides where the guest's cores run,
 * and on the 2-core machines these benchmarks run on, that round trip moves between ~50-70 ns and
 * ~380-470 ns in spells of seconds to tens of seconds, with nothing else running (measured by a
 * standalone version of this probe, once a second for two minutes). A hop from one thread to another
 * moves several cache lines each way (the queue, the task, the continuation's state), so a hop
 * benchmark's throughput swings with it by up to 3x, whatever executor it measures, and two rows
 * measured in different spells cannot be compared. Probing before and after each iteration tells
 * which spell the iteration ran in ({@link PumpHopBenchmark}, {@link PumpHopRun}).
 *
 * <p>Not thread-safe: one probe at a time (the benchmark's iteration set-up and tear-down).
 */
final class CoreTransferProbe {

    /** Round trips faster than this: the cores share a cache ("near"). */
    static final double NEAR_NS = 150;
    /** Round trips slower than this: the lines cross between caches that are far apart ("far"). */
    static final double FAR_NS = 250;

    /** How long the threads hand the counter back and forth. */
    private static final long PROBE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** The pause before it, so that spinning executors of the benchmark have gone idle. */
    private static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(15);

    private static volatile long ball;

    private CoreTransferProbe() {
    }

    /**
     * Nanoseconds per round trip of one cache line between this thread and another, over
     * {@value #PROBE_NANOS} ns. If the two threads share one core, each round trip waits for a time
     * slice and the result is far above {@link #FAR_NS}, which is also what it means for a hop.
     */
    static double roundTripNanos() throws InterruptedException {
        LockSupport.parkNanos(SETTLE_NANOS);
        long start = ball;
        Thread echo = Thread.ofPlatform().daemon().name("core-probe").start(() -> {
            long expect = start + 1;
            while (true) {
                long b;
                while ((b = ball) != expect) {
                    if (b < 0) {
                        return;
                    }
                    Thread.onSpinWait();
                }
                ball = expect + 1;
                expect += 2;
            }
        });
        long trips = 0;
        long next = start;
        long t0 = System.nanoTime();
        long deadline = t0 + PROBE_NANOS;
        long now;
        do {
            for (int i = 0; i < 100; i++) {
                ball = next + 1;
                next += 2;
                while (ball != next) {
                    Thread.onSpinWait();
                }
            }
            trips += 100;
            now = System.nanoTime();
        } while (now < deadline);
        ball = -1; // tells the echo thread to stop
        echo.join();
        ball = 0;
        return (now - t0) / (double) trips;
    }

    /** "near", "far" or "mixed" for an iteration probed before and after. */
    static String spell(double before, double after) {
        double hi = Math.max(before, after);
        double lo = Math.min(before, after);
        return hi < NEAR_NS ? "near" : lo > FAR_NS ? "far" : "mixed";
    }
}
