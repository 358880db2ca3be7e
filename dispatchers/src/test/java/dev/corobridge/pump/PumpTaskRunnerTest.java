package dev.corobridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * One unit of work run and accounted for: a sampled post is unwrapped and its queue latency
 * recorded on the pump clock; tasks count as dispatches, timers as fired timers; the task sequence
 * is odd while user code runs; a failure is counted and reaches the handler, and a handler that
 * throws does not escape.
 */
class PumpTaskRunnerTest {

    private final AtomicLong now = new AtomicLong();
    private final PumpCounters counters = new PumpCounters();
    private final List<Throwable> handled = new ArrayList<>();

    private PumpTaskRunner runner(Thread.UncaughtExceptionHandler handler) {
        return new PumpTaskRunner("runner-test", now::get, counters, handler);
    }

    private PumpMetrics metrics() {
        return counters.snapshot("runner-test", "RUNNING", 0, 0, 0, 0);
    }

    @Test
    void aSampledPostRunsItsTaskAndRecordsItsLatencyOnThePumpClock() {
        PumpTaskRunner r = runner((t, e) -> handled.add(e));
        long[] seqDuringRun = {-1};
        Runnable task = () -> seqDuringRun[0] = counters.taskSequence();
        now.set(1_000);
        TimedTask sampled = new TimedTask(task, 1_000);
        now.set(1_750);
        r.runTask(sampled);

        assertEquals(1, seqDuringRun[0] & 1, "odd while the task runs");
        assertEquals(0, counters.taskSequence() & 1, "even once it returned");
        PumpMetrics m = metrics();
        assertEquals(1, m.dispatches());
        assertEquals(1, m.latencySamples());
        assertEquals(750, m.queueLatencyMaxNanos());

        r.runTask(() -> { }); // not sampled: no latency sample
        assertEquals(2, metrics().dispatches());
        assertEquals(1, metrics().latencySamples());
        assertTrue(handled.isEmpty());
    }

    @Test
    void aTimerCountsAsFiredNotAsADispatch() {
        PumpTaskRunner r = runner((t, e) -> handled.add(e));
        TimerQueue timers = new TimerQueue();
        int[] ran = {0};
        PumpTimer timer = timers.newTimer(0, () -> ran[0]++, null);
        r.runTimer(timer);
        assertEquals(1, ran[0]);
        assertEquals(1, metrics().timersFired());
        assertEquals(0, metrics().dispatches());
        assertEquals(2, counters.taskSequence());
    }

    @Test
    void aFailureIsCountedAndHandedToTheHandlerOnTheRunningThread() {
        List<Thread> handledOn = new ArrayList<>();
        PumpTaskRunner r = runner((t, e) -> {
            handledOn.add(t);
            handled.add(e);
        });
        IllegalStateException boom = new IllegalStateException("boom");
        r.runTask(() -> {
            throw boom;
        });
        assertEquals(List.of(boom), handled);
        assertSame(Thread.currentThread(), handledOn.get(0));
        PumpMetrics m = metrics();
        assertEquals(1, m.taskFailures());
        assertEquals(1, m.dispatches(), "a task that threw still ran");
        assertEquals(0, counters.taskSequence() & 1, "even again after a failure");
    }

    @Test
    void aHandlerThatThrowsDoesNotEscape() {
        PumpTaskRunner r = runner((t, e) -> {
            throw new IllegalArgumentException("handler broke");
        });
        r.runTask(() -> {
            throw new IllegalStateException("task broke");
        });
        r.reportFailure(new IllegalStateException("reported directly"));
        assertEquals(1, metrics().taskFailures(), "reportFailure alone counts nothing: it only reports");
        assertEquals(1, metrics().dispatches());
    }
}
