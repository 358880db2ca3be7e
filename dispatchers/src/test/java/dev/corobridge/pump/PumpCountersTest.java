package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.corobridge.pump.PumpCounters.Counter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every counter lands in its own {@link PumpMetrics} field (a crossed wire would go unnoticed by
 * the loop's tests, which mostly look at one counter at a time), the task sequence's parity
 * follows user code, and stalls counted from several threads are all counted.
 */
class PumpCountersTest {

    @Test
    void eachCounterReachesItsOwnSnapshotField() {
        PumpCounters c = new PumpCounters();
        repeat(1, () -> c.count(Counter.DISPATCHES));
        repeat(2, () -> c.count(Counter.COMPLETIONS_RUN));
        repeat(3, () -> c.count(Counter.TIMERS_FIRED));
        repeat(4, () -> c.count(Counter.PARKS));
        repeat(5, () -> c.count(Counter.SPIN_HITS));
        repeat(6, () -> c.count(Counter.FAILURES));
        repeat(7, () -> c.count(Counter.INTERRUPTS));
        repeat(8, c::stallReported);
        c.recordLatency(1_000);
        c.recordLatency(3_000);

        PumpMetrics m = c.snapshot("p", "RUNNING", 9, 10, 11, 12);
        assertEquals("p", m.pumpName());
        assertEquals("RUNNING", m.state());
        assertEquals(9, m.queueDepth());
        assertEquals(1, m.dispatches());
        assertEquals(2, m.completionsDelivered());
        assertEquals(3, m.timersFired());
        assertEquals(10, m.wakeups());
        assertEquals(4, m.parks());
        assertEquals(5, m.spinHits());
        assertEquals(6, m.taskFailures());
        assertEquals(7, m.interrupts());
        assertEquals(8, m.stalls());
        assertEquals(11, m.pendingTimers());
        assertEquals(12, m.liveChildren());
        assertEquals(2, m.latencySamples());
        assertEquals(3_000, m.queueLatencyMaxNanos());
    }

    @Test
    void theTaskSequenceIsOddExactlyBetweenTheStepsAroundUserCode() {
        PumpCounters c = new PumpCounters();
        assertEquals(0, c.taskSequence() & 1);
        c.stepTaskSequence(); // a task starts
        assertEquals(1, c.taskSequence() & 1);
        c.stepTaskSequence(); // it calls pumpUntil: dispatching, not stalled
        assertEquals(0, c.taskSequence() & 1);
        c.stepTaskSequence(); // pumpUntil returns: the task runs again
        assertEquals(1, c.taskSequence() & 1);
        c.stepTaskSequence(); // the task ends
        assertEquals(4, c.taskSequence());
    }

    @Test
    void countReturnsTheRunningCount() {
        PumpCounters c = new PumpCounters();
        assertEquals(1, c.count(Counter.INTERRUPTS));
        assertEquals(2, c.count(Counter.INTERRUPTS));
    }

    @Test
    void stallsReportedFromSeveralThreadsAreAllCounted() throws Exception {
        PumpCounters c = new PumpCounters();
        int threads = 4;
        int each = 10_000;
        CyclicBarrier start = new CyclicBarrier(threads);
        List<Thread> ts = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                try {
                    start.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                for (int k = 0; k < each; k++) {
                    c.stallReported();
                }
            });
            t.start();
            ts.add(t);
        }
        for (Thread t : ts) {
            t.join(WAIT.toMillis());
            assertFalse(t.isAlive());
        }
        assertEquals((long) threads * each, c.snapshot("p", "RUNNING", 0, 0, 0, 0).stalls());
    }

    private static void repeat(int times, Runnable r) {
        for (int i = 0; i < times; i++) {
            r.run();
        }
    }
}
