package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A task that blocks the pump is reported once, with the pump thread's stack, and counted. */
class StallWatchdogTest {

    @Test
    void aBlockingTaskIsReportedOnceWithItsStack() throws Exception {
        List<StallReport> reports = new CopyOnWriteArrayList<>();
        CountDownLatch reported = new CountDownLatch(1);
        MessagePump pump = MessagePump.start(PumpConfig.builder("stalling")
                .stallThreshold(Duration.ofMillis(50))
                .stallListener(r -> {
                    reports.add(r);
                    reported.countDown();
                }).build());
        try {
            CountDownLatch release = new CountDownLatch(1);
            pump.post(() -> blockTheLoop(release));
            assertTrue(reported.await(30, TimeUnit.SECONDS), "stall not reported");
            // Keep blocking for several more watchdog periods: still one report for this task.
            onWatchdogPeriods(4);
            release.countDown();
            onPump(pump, () -> { });
            assertEquals(1, reports.size(), reports.toString());
            StallReport r = reports.get(0);
            assertEquals("stalling", r.pumpName());
            assertTrue(r.blockedFor().toMillis() >= 50, r.toString());
            assertTrue(r.stack().stream().anyMatch(e -> e.getMethodName().equals("blockTheLoop")), r.toString());
            assertTrue(r.toString().contains("blockTheLoop"), r.toString());
            assertEquals(1, pump.metrics().stalls());
        } finally {
            stop(pump);
        }
    }

    @Test
    void shortTasksAreNotStalls() throws Exception {
        List<StallReport> reports = new CopyOnWriteArrayList<>();
        MessagePump pump = MessagePump.start(PumpConfig.builder("busy-not-stalled")
                .stallThreshold(Duration.ofMillis(200)).stallListener(reports::add).build());
        try {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(600);
            while (System.nanoTime() < end) {
                onPump(pump, () -> { });
            }
            assertEquals(List.of(), reports);
        } finally {
            stop(pump);
        }
    }

    private static void blockTheLoop(CountDownLatch release) {
        try {
            release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void onWatchdogPeriods(int n) throws InterruptedException {
        // Watchdog period is threshold / 4 but at least 5 ms: let a few pass.
        new CountDownLatch(1).await(n * 15L, TimeUnit.MILLISECONDS);
    }
}
