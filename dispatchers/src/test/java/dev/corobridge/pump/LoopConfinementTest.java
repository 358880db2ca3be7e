package dev.corobridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * State that only the pump thread may touch is checked with {@code assert}: off that thread the
 * confined methods fail at once (the tests run with {@code -ea}) instead of corrupting the loop.
 */
class LoopConfinementTest {

    @Test
    void theTestsRunWithAssertionsEnabled() {
        assertTrue(MessagePump.class.desiredAssertionStatus(),
                "surefire must run the pump's tests with -ea, or the confinement checks below check nothing");
    }

    /** Runs {@code body} on another thread and returns what it threw ({@code null}: nothing). */
    private static Throwable thrownElsewhere(Runnable body) throws Exception {
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                body.run();
                thrown.complete(null);
            } catch (Throwable e) {
                thrown.complete(e);
            }
        }, "not-the-pump");
        t.start();
        return thrown.get(30, TimeUnit.SECONDS);
    }

    private static void assertConfined(String what, Runnable offThreadCall) throws Exception {
        Throwable e = thrownElsewhere(offThreadCall);
        assertTrue(e instanceof AssertionError, what + " off its thread must fail an assertion, threw " + e);
    }

    @Test
    void theLoopsStepsRefuseToRunOffThePumpThread() throws Exception {
        ManualPump p = ManualPump.create("confined"); // the test thread is its pump thread
        assertConfined("drive()", p::drive);
        assertConfined("runIteration()", () -> p.loop().runIteration(true));
        assertConfined("hasWork()", p.loop()::hasWork);
        assertConfined("idle()", p.loop()::idle);
        // Nothing was disturbed: the pump still works on its own thread.
        int[] ran = {0};
        p.execute(() -> ran[0]++);
        p.runUntilIdle();
        assertEquals(1, ran[0]);
    }

    @Test
    void theGatesOwnerOperationsRefuseOtherThreads() throws Exception {
        WakeupGate gate = new WakeupGate();
        gate.bind(Thread.currentThread());
        assertConfined("WakeupGate.arm()", gate::arm);
        assertConfined("WakeupGate.disarm()", gate::disarm);
        assertConfined("WakeupGate.park()", () -> gate.park(1));
        Throwable wake = thrownElsewhere(gate::wake);
        assertEquals(null, wake, "wake() is for any thread");
    }

    @Test
    void theTimerHeapAndTheHistogramHaveASingleOwner() throws Exception {
        TimerQueue timers = new TimerQueue();
        timers.add(timers.newTimer(10, () -> { }, null)); // this thread owns the heap from now on
        assertConfined("TimerQueue.pollDue()", () -> timers.pollDue(10));
        PumpTimer another = timers.newTimer(5, () -> { }, null);
        assertConfined("TimerQueue.add()", () -> timers.add(another));
        assertEquals(10, timers.nextDue(), "the heap is unchanged");

        LatencyHistogram h = new LatencyHistogram();
        h.record(100); // this thread is the writer from now on
        assertConfined("LatencyHistogram.record()", () -> h.record(200));
        assertEquals(1, h.count());
    }
}
