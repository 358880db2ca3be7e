package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An interrupt of the pump thread is cleared and reported; the pump goes back to sleep. Idleness
 * is measured by counting, not by time: a sleeping pump parks once per round trip of a test post,
 * a pump whose park returns at once (a pending interrupt) parks thousands of times meanwhile.
 */
class PumpInterruptTest {

    /** Round trips measured; each one may cost the idle pump one park (plus a rare spurious return). */
    private static final int ROUND_TRIPS = 200;

    private PumpLogCapture log;

    @BeforeEach
    void captureLog() {
        log = new PumpLogCapture(Level.WARNING);
    }

    @AfterEach
    void releaseLog() {
        log.close();
    }

    private static MessagePump pumpWithoutSpinning(String name) {
        // No spinning, no watchdog: every idle period of this pump is exactly one arm-recheck-park.
        return MessagePump.start(PumpConfig.builder(name).spinBudget(Duration.ZERO).stallThreshold(Duration.ZERO)
                .build());
    }

    /** Bounded wait for a condition the pump makes true; not a timing assertion. */
    private static void awaitCondition(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + WAIT + ": " + what);
            }
            Thread.onSpinWait();
        }
    }

    private List<String> warningsAbout(String pumpName) {
        return log.records().stream().map(LogRecord::getMessage).filter(m -> m.contains("'" + pumpName + "'")).toList();
    }

    @Test
    void aTaskThatInterruptsThePumpThreadDoesNotMakeTheLoopSpin() throws Exception {
        MessagePump p = pumpWithoutSpinning("interrupted");
        try {
            onPump(p, () -> Thread.currentThread().interrupt());
            awaitCondition(() -> p.getMetrics().interrupts() == 1, "the idle loop meets the interrupt");

            long parksBefore = p.getMetrics().parks();
            for (int i = 0; i < ROUND_TRIPS; i++) {
                assertFalse(onPump(p, () -> Thread.currentThread().isInterrupted()),
                        "round trip " + i + ": the interrupt status was not cleared");
            }
            long parks = p.getMetrics().parks() - parksBefore;
            // A sleeping pump parks once per round trip (woken by the next post). A pump whose park
            // returns at once because of a pending interrupt parks again and again meanwhile.
            assertTrue(parks <= 2L * ROUND_TRIPS + 2,
                    parks + " parks in " + ROUND_TRIPS + " round trips: the idle loop spins");
            assertEquals(1, p.getMetrics().interrupts());
            List<String> logged = warningsAbout("interrupted");
            assertEquals(1, logged.size(), logged.toString());
            assertTrue(logged.get(0).contains("shutdown()"), "the warning names the way to stop a pump: " + logged);
        } finally {
            stop(p);
        }
    }

    @Test
    void anInterruptFromAnotherThreadWhileThePumpSleepsIsClearedToo() throws Exception {
        MessagePump p = pumpWithoutSpinning("interrupted-from-outside");
        try {
            onPump(p, () -> { });
            p.getThread().interrupt(); // asleep or about to be: either way the idle loop meets it
            awaitCondition(() -> p.getMetrics().interrupts() == 1, "the idle loop meets the interrupt");
            // Then it sleeps for good (parked without a timeout) and a post wakes it, as usual.
            awaitCondition(() -> p.getThread().getState() == Thread.State.WAITING, "the pump parks again");
            long wakeups = p.getMetrics().wakeups();
            assertFalse(onPump(p, () -> Thread.currentThread().isInterrupted()));
            assertEquals(wakeups + 1, p.getMetrics().wakeups(), "one post, one wake-up");
        } finally {
            stop(p);
        }
    }

    @Test
    void everyInterruptIsCountedButOnlyTheFirstIsAWarning() throws Exception {
        MessagePump p = pumpWithoutSpinning("interrupted-thrice");
        try {
            for (int i = 1; i <= 3; i++) {
                onPump(p, () -> Thread.currentThread().interrupt());
                long expected = i;
                awaitCondition(() -> p.getMetrics().interrupts() == expected, "interrupt " + i + " counted");
            }
            assertEquals(1, warningsAbout("interrupted-thrice").size(), warningsAbout("interrupted-thrice").toString());
            assertFalse(onPump(p, () -> Thread.currentThread().isInterrupted()));
        } finally {
            stop(p);
        }
    }

    @Test
    void aManualPumpLeavesItsTestThreadsInterruptStatusAlone() {
        ManualPump p = ManualPump.create("manual-interrupt");
        p.execute(() -> Thread.currentThread().interrupt());
        p.runUntilIdle();
        assertTrue(Thread.interrupted(), "the test thread's own status (cleared here)");
        assertEquals(0, p.getMetrics().interrupts());
    }
}
