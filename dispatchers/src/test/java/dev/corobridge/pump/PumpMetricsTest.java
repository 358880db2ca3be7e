package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class PumpMetricsTest {

    /**
     * A pump that {@code start} returned is running: its state says so at once, not only once its
     * thread got the CPU (health checks and metrics read it right after start).
     */
    @Test
    void aStartedPumpIsRunningWhenStartReturns() throws Exception {
        for (int i = 0; i < 200; i++) {
            MessagePump pump = MessagePump.start("started-" + i);
            try {
                assertEquals("RUNNING", pump.getMetrics().state(), "round " + i);
                assertTrue(!pump.isShutdown(), "round " + i);
            } finally {
                stop(pump);
            }
            assertEquals("TERMINATED", pump.getMetrics().state(), "round " + i);
        }
    }

    /** A pump shut down before its thread ran terminates all the same (the loop sees the shutdown first). */
    @Test
    void aPumpShutDownRightAfterStartTerminates() throws Exception {
        for (int i = 0; i < 200; i++) {
            MessagePump pump = MessagePump.start("stopped-" + i);
            pump.shutdown(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
            assertEquals("TERMINATED", pump.getMetrics().state(), "round " + i);
        }
    }

    /**
     * Work is counted when it starts: a caller that has seen what a task, a timer or a delivered
     * completion did finds it counted, even while it still runs (a count made after the run lagged
     * one unit behind what the caller had seen).
     */
    @Test
    void workIsCountedWhenItStartsSoWhatACallerSawIsCounted() throws Exception {
        MessagePump pump = MessagePump.start("counted-at-start");
        try {
            PumpMetrics m = whileRunning(pump, pump::execute);
            assertEquals(1, m.dispatches(), "a running task: " + m);

            // Scheduled from this thread: a hand-over task (a dispatch), then the timer itself.
            m = whileRunning(pump, action -> pump.schedule(action, Duration.ofMillis(1)));
            assertEquals(1, m.timersFired(), "a running timer: " + m);
            assertEquals(2, m.dispatches(), "the timer is not a dispatch, its hand-over is: " + m);

            m = whileRunning(pump, pump::deliver);
            assertEquals(1, m.completionsDelivered(), "a running completion: " + m);
            assertEquals(3, m.dispatches(), "a completion is a dispatch: " + m);
        } finally {
            stop(pump);
        }
    }

    /**
     * Hands {@code start} an action that signals it runs and then waits; returns {@code pump}'s
     * metrics read off the pump while the action is still running, then lets it finish.
     */
    private static PumpMetrics whileRunning(MessagePump pump, Consumer<Runnable> start) throws Exception {
        CompletableFuture<Void> running = new CompletableFuture<>();
        CountDownLatch release = new CountDownLatch(1);
        start.accept(() -> {
            running.complete(null);
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            running.get(30, TimeUnit.SECONDS);
            return pump.getMetrics();
        } finally {
            release.countDown();
        }
    }

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
            // 100 posts + the blocking task + the hand-over of the timer scheduled off the pump + the
            // reading task itself (counted as it starts).
            assertEquals(103, m.dispatches());
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
