package dev.corobridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.RejectedExecutionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The deterministic test pump: runUntilIdle and a manual clock, no sleeps. */
class ManualPumpTest {

    /**
     * Any duration moves the clock, as {@code schedule} takes any: one too long for a {@code long}
     * of nanoseconds moves it to the end of time (it threw ArithmeticException), running every
     * timer on the way, and a second one there is no error either.
     */
    @Test
    void advancingByMoreThanALongOfNanosecondsRunsEveryTimer() {
        ManualPump ui = ManualPump.create("manual-long");
        AtomicBoolean far = new AtomicBoolean();
        ui.schedule(() -> far.set(true), Duration.ofDays(365L * 1000));
        assertEquals(1, ui.advanceTimeBy(Duration.ofSeconds(Long.MAX_VALUE)));
        assertTrue(far.get());
        assertEquals(0, ui.advanceTimeBy(Duration.ofSeconds(Long.MAX_VALUE)));
        ui.shutdownNow();
    }

    @Test
    void nothingRunsUntilTheTestDrivesIt() throws Exception {
        ManualPump ui = ManualPump.create("manual");
        List<String> log = new ArrayList<>();
        Thread other = new Thread(() -> ui.execute(() -> log.add("from other thread")));
        other.start();
        other.join();
        ui.execute(() -> {
            log.add("a");
            ui.execute(() -> log.add("c"));
            log.add("b");
        });
        assertEquals(List.of(), log);
        assertEquals(3, ui.runUntilIdle()); // three tasks, four log lines
        assertEquals(List.of("from other thread", "a", "b", "c"), log);
        assertEquals(0, ui.runUntilIdle());
    }

    @Test
    void advanceTimeByFiresTimersAtTheirOwnDueTimes() {
        ManualPump ui = ManualPump.create("clock");
        AtomicBoolean shown = new AtomicBoolean();
        List<Long> firedAt = new ArrayList<>();
        ui.schedule(() -> shown.set(true), Duration.ofSeconds(5));
        ui.schedule(() -> {
            firedAt.add(ui.getCurrentTimeNanos());
            ui.schedule(() -> firedAt.add(ui.getCurrentTimeNanos()), Duration.ofSeconds(1));
        }, Duration.ofSeconds(2));
        ui.advanceTimeBy(Duration.ofSeconds(4));
        assertFalse(shown.get());
        assertEquals(List.of(2_000_000_000L, 3_000_000_000L), firedAt);
        assertEquals(4_000_000_000L, ui.getCurrentTimeNanos());
        ui.advanceTimeBy(Duration.ofSeconds(1));
        assertTrue(shown.get());
    }

    @Test
    void advanceUntilIdleRunsEveryTimer() {
        ManualPump ui = ManualPump.create("until-idle");
        List<Integer> order = new ArrayList<>();
        ui.schedule(() -> order.add(3), Duration.ofMinutes(3));
        ui.schedule(() -> order.add(1), Duration.ofMinutes(1));
        ui.execute(() -> order.add(0));
        ui.advanceUntilIdle();
        assertEquals(List.of(0, 1, 3), order);
        assertEquals(Duration.ofMinutes(3).toNanos(), ui.getCurrentTimeNanos());
    }

    @Test
    void runawayRepostingIsReportedNotLoopedForever() {
        ManualPump ui = ManualPump.create("runaway");
        Runnable[] r = new Runnable[1];
        r[0] = () -> ui.execute(r[0]);
        ui.execute(r[0]);
        IllegalStateException e = assertThrows(IllegalStateException.class, ui::runUntilIdle);
        assertTrue(e.getMessage().contains("re-posts itself"), e.getMessage());
    }

    @Test
    void pumpUntilOnAManualPumpRunsWhatIsReadyAndReturns() {
        ManualPump ui = ManualPump.create("nested-manual");
        AtomicBoolean flag = new AtomicBoolean();
        ui.execute(() -> flag.set(true));
        assertTrue(ui.pumpUntil(flag::get, Duration.ofHours(1)));
        assertFalse(ui.pumpUntil(() -> false, Duration.ofHours(1)), "must not wait for a clock nobody moves");
    }

    @Test
    void shutdownRunsInVirtualTime() throws Exception {
        ManualPump ui = ManualPump.create("manual-shutdown");
        ui.schedule(() -> { }, Duration.ofMinutes(1));
        var f = ui.shutdown(Duration.ofSeconds(10));
        assertFalse(f.isDone());
        ui.runUntilIdle();
        assertTrue(f.isDone());
        ShutdownReport r = f.get();
        assertTrue(r.graceful());
        assertEquals(1, r.abandonedTimers());
        assertThrows(RejectedExecutionException.class, () -> ui.execute(() -> { }));
    }
}
