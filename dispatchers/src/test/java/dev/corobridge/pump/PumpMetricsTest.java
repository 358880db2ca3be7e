package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PumpMetricsTest {

    @Test
    void countsDispatchesLatencyTimersAndWakeups() throws Exception {
        MessagePump pump = MessagePump.start(PumpConfig.builder("metrics").latencySampleEvery(1)
                .spinBudget(Duration.ZERO).build());
        try {
            CountDownLatch gate = new CountDownLatch(1);
            pump.execute(() -> {
                try {
                    gate.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            for (int i = 0; i < 100; i++) {
                pump.execute(() -> { });
            }
            assertTrue(pump.getMetrics().queueDepth() >= 99, "queued behind the blocked task");
            gate.countDown();
            pump.schedule(() -> { }, Duration.ofHours(1));
            PumpMetrics m = onPump(pump, pump::getMetrics);
            assertEquals("RUNNING", m.state());
            // 100 posts + the blocking task + the hand-over of the timer scheduled off the pump.
            assertEquals(102, m.dispatches());
            assertEquals(1, m.pendingTimers());
            assertTrue(m.latencySamples() >= 101, "every post sampled: " + m.latencySamples());
            assertTrue(m.queueLatencyMaxNanos() > 0);
            assertTrue(m.queueLatencyP99Nanos() <= m.queueLatencyMaxNanos());
            // Posts from a quiet test thread to a parked pump each need a wake-up.
            for (int i = 0; i < 20; i++) {
                onPump(pump, () -> { });
            }
            m = pump.getMetrics();
            assertTrue(m.wakeups() >= 1 && m.wakeups() <= m.dispatches(), m.toString());
            assertTrue(m.wakeupsPerDispatch() > 0 && m.wakeupsPerDispatch() <= 1.0, m.toString());
            assertTrue(m.parks() >= m.wakeups(), m.toString());
        } finally {
            stop(pump);
        }
        assertEquals("TERMINATED", pump.getMetrics().state());
    }

    @Test
    void aBurstSharesWakeups() throws Exception {
        MessagePump pump = MessagePump.start(PumpConfig.builder("burst").spinBudget(Duration.ZERO).build());
        try {
            onPump(pump, () -> { });
            long before = pump.getMetrics().wakeups();
            CountDownLatch done = new CountDownLatch(10_000);
            for (int i = 0; i < 10_000; i++) {
                pump.execute(done::countDown);
            }
            assertTrue(done.await(30, TimeUnit.SECONDS));
            long used = pump.getMetrics().wakeups() - before;
            assertTrue(used < 10_000 / 16, "a burst of 10000 posts cost " + used + " wake-ups");
        } finally {
            stop(pump);
        }
    }
}
