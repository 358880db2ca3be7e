package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The queue + wake-up protocol under at least 10^6 randomized post/park interleavings.
 *
 * <p>Each round, two producers post a random burst (1–3 tasks) after a random delay (none, a few
 * spin-waits, a yield, or a short park) while the pump is going to sleep, then the round waits,
 * with a bound, until every task has run. Every round ends with the pump idle, so the last post of
 * a round has nothing after it to mask a lost wake-up: a lost wake-up leaves the round unfinished
 * and fails with the queue state instead of hanging. Spinning is off so that every idle period
 * goes through arm / re-check / park, the racy part.
 */
class WakeupProtocolStressTest {

    private static final int PRODUCERS = 2;
    private static final long TARGET_POSTS = 1_000_000;

    @Test
    void noLostWakeupsAndAtMostOneWakeupPerSleep() throws Exception {
        MessagePump pump = MessagePump.start(PumpConfig.builder("stress")
                .spinBudget(Duration.ZERO).latencySampleEvery(0).stallThreshold(Duration.ZERO).build());
        AtomicLong ran = new AtomicLong();
        Runnable task = ran::incrementAndGet;
        AtomicLong posted = new AtomicLong();
        CyclicBarrier start = new CyclicBarrier(PRODUCERS + 1);
        CyclicBarrier end = new CyclicBarrier(PRODUCERS + 1);
        long rounds = 0;
        Thread[] producers = new Thread[PRODUCERS];
        java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();
        for (int i = 0; i < PRODUCERS; i++) {
            long seed = 42 + i;
            producers[i] = new Thread(() -> {
                SplittableRandom rnd = new SplittableRandom(seed);
                try {
                    while (true) {
                        start.await();
                        if (finished.get()) {
                            return;
                        }
                        jitter(rnd);
                        int burst = 1 + rnd.nextInt(3);
                        for (int b = 0; b < burst; b++) {
                            pump.execute(task);
                            posted.incrementAndGet();
                            if (rnd.nextInt(4) == 0) {
                                jitter(rnd);
                            }
                        }
                        end.await();
                    }
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            }, "stress-producer-" + i);
            producers[i].start();
        }
        try {
            while (posted.get() < TARGET_POSTS) {
                start.await(30, TimeUnit.SECONDS);
                end.await(30, TimeUnit.SECONDS);
                long expected = posted.get();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (ran.get() != expected) {
                    if (System.nanoTime() - deadline > 0) {
                        fail("lost wake-up in round " + rounds + ": posted " + expected + ", ran " + ran.get()
                                + ", pump " + pump.getMetrics() + ", armed=" + pump.toString());
                    }
                    Thread.onSpinWait();
                }
                rounds++;
            }
            finished.set(true);
            start.await(30, TimeUnit.SECONDS);
        } finally {
            for (Thread t : producers) {
                t.join(10_000);
            }
        }
        PumpMetrics m = pump.getMetrics();
        stop(pump);
        assertTrue(posted.get() >= TARGET_POSTS);
        assertEquals(posted.get(), ran.get());
        assertTrue(rounds > 100_000, "too few interleavings: " + rounds);
        assertTrue(m.wakeups() <= pump.gate.arms(),
                "more wake-ups (" + m.wakeups() + ") than sleeps (" + pump.gate.arms() + ")");
        assertTrue(m.wakeups() > 0, "the pump never slept: the test exercised nothing");
    }

    private static void jitter(SplittableRandom rnd) {
        switch (rnd.nextInt(4)) {
            case 0 -> { }
            case 1 -> {
                for (int s = rnd.nextInt(200); s > 0; s--) {
                    Thread.onSpinWait();
                }
            }
            case 2 -> Thread.yield();
            default -> LockSupport.parkNanos(rnd.nextInt(20_000));
        }
    }
}
