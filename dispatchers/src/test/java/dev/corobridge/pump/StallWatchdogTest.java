package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task that blocks the pump is reported once, with the pump thread's stack, and counted. The
 * sampler is driven by hand with a manual clock: which task is running is fixed by latches, and
 * how long it has been running is whatever the test says, so no outcome depends on the speed of
 * a loaded machine.
 */
class StallWatchdogTest {

    private static final long THRESHOLD = TimeUnit.MILLISECONDS.toNanos(200);

    private final List<StallReport> reports = new CopyOnWriteArrayList<>();
    /** The watchdog's own thread is off: stallThreshold ZERO. The sampler below is the watchdog. */
    private final MessagePump pump = MessagePump.start(PumpConfig.builder("stalling")
            .stallThreshold(Duration.ZERO).stallListener(reports::add).build());
    private final AtomicLong now = new AtomicLong();
    private final StallWatchdog.Sampler sampler =
            new StallWatchdog.Sampler(pump, pump.getThread(), THRESHOLD, now::get);

    @AfterEach
    void stopPump() throws Exception {
        stop(pump);
    }

    /** Posts a task that blocks the pump until {@code release}; returns once it is running. */
    private void blockThePump(CountDownLatch release) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        pump.execute(() -> blockTheLoop(running, release));
        assertTrue(running.await(WAIT.toSeconds(), TimeUnit.SECONDS), "the blocking task did not start");
    }

    private static void blockTheLoop(CountDownLatch running, CountDownLatch release) {
        running.countDown();
        try {
            release.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs a no-op task and waits until it has returned, not merely completed its future: until the
     * pump's task sequence is even (no task running) again. Only then is "no task runs" a fact the
     * samples can rely on.
     */
    private void letThePumpGoQuiet() throws Exception {
        onPump(pump, () -> { });
        long deadline = System.nanoTime() + WAIT.toNanos();
        while ((pump.taskSequence() & 1) == 1) {
            assertTrue(System.nanoTime() - deadline < 0, "the pump did not finish its task");
            Thread.onSpinWait();
        }
    }

    private void sampleAt(long nanos) {
        now.set(nanos);
        sampler.run();
    }

    @Test
    void aBlockingTaskIsReportedOnceWithItsStack() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        blockThePump(release);
        sampleAt(0); // sees the task start
        sampleAt(THRESHOLD - 1);
        assertEquals(List.of(), reports, "not yet a stall");
        sampleAt(THRESHOLD);
        assertEquals(1, reports.size(), "a stall at the threshold");
        // Still blocked for many more periods: still one report for this task.
        for (int i = 1; i <= 8; i++) {
            sampleAt(THRESHOLD + i * THRESHOLD / 4);
        }
        release.countDown();
        letThePumpGoQuiet();
        sampleAt(10 * THRESHOLD);

        assertEquals(1, reports.size(), reports.toString());
        StallReport r = reports.get(0);
        assertEquals("stalling", r.pumpName());
        assertEquals("stalling", r.threadName());
        assertEquals(Duration.ofNanos(THRESHOLD), r.blockedFor(), "measured on the watchdog's clock");
        assertTrue(r.stack().stream().anyMatch(e -> e.getMethodName().equals("blockTheLoop")), r.toString());
        assertTrue(r.toString().contains("blockTheLoop"), r.toString());
        assertEquals(1, pump.getMetrics().stalls());
    }

    @Test
    void eachStalledTaskIsReportedOnItsOwn() throws Exception {
        for (int task = 1; task <= 3; task++) {
            CountDownLatch release = new CountDownLatch(1);
            blockThePump(release);
            long start = task * 100 * THRESHOLD;
            sampleAt(start);
            sampleAt(start + 2 * THRESHOLD);
            release.countDown();
            letThePumpGoQuiet();
            assertEquals(task, reports.size(), reports.toString());
        }
        assertEquals(3, pump.getMetrics().stalls());
    }

    @Test
    void tasksShorterThanTheThresholdAreNotStalls() throws Exception {
        for (int task = 0; task < 20; task++) {
            CountDownLatch release = new CountDownLatch(1);
            blockThePump(release);
            long start = task * 10 * THRESHOLD;
            sampleAt(start);
            sampleAt(start + THRESHOLD - 1); // just below the threshold: still running, not a stall
            release.countDown();
            letThePumpGoQuiet();
            sampleAt(start + 5 * THRESHOLD); // a different task (or none) by now
        }
        assertEquals(List.of(), reports);
        assertEquals(0, pump.getMetrics().stalls());
    }

    @Test
    void anIdlePumpIsNeverStalledHoweverLongItSleeps() throws Exception {
        letThePumpGoQuiet();
        for (int i = 0; i < 10; i++) {
            sampleAt(i * 10 * THRESHOLD);
        }
        assertEquals(List.of(), reports);
    }

    @Test
    void aNestedLoopThatKeepsDispatchingIsNotAStall() throws Exception {
        CountDownLatch nested = new CountDownLatch(1);
        CountDownLatch leave = new CountDownLatch(1);
        pump.execute(() -> {
            nested.countDown();
            pump.pumpUntil(() -> leave.getCount() == 0, Duration.ofSeconds(60));
        });
        assertTrue(nested.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        sampleAt(0);
        letThePumpGoQuiet(); // the nested loop dispatches this
        sampleAt(5 * THRESHOLD);
        sampleAt(10 * THRESHOLD);
        leave.countDown();
        pump.execute(() -> { }); // wake the nested loop so it sees leave
        onPump(pump, () -> { });
        assertEquals(List.of(), reports);
    }

    @Test
    void theWatchdogThreadReportsABlockedPumpOnItsOwn() throws Exception {
        // End to end, with the real watchdog thread: the task blocks until it has been reported.
        CountDownLatch reported = new CountDownLatch(1);
        MessagePump watched = MessagePump.start(PumpConfig.builder("watched")
                .stallThreshold(Duration.ofMillis(50)).stallListener(r -> reported.countDown()).build());
        try {
            CountDownLatch running = new CountDownLatch(1);
            watched.execute(() -> blockTheLoop(running, reported));
            assertTrue(reported.await(WAIT.toSeconds(), TimeUnit.SECONDS), "stall not reported");
            onPump(watched, () -> { });
            assertTrue(watched.getMetrics().stalls() >= 1);
        } finally {
            stop(watched);
        }
    }
}
