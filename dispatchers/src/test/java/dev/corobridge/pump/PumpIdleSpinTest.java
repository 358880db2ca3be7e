package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * When the idle pump spins: after sparse traffic (a few posts since it last went idle) it re-checks
 * its queues for up to {@code spinBudget} before it parks; after a crowded busy period ({@link
 * IdleSpin#CROWDED} items or more) it parks at once, so the spin does not take a core from the many
 * producers a wake-up is shared by anyway, until a few parks in a row gather fewer posts. The tests
 * use the longest budget (10 ms) and post the next task ~1 ms after the pump ran out of work: a
 * spinning pump finds it (a spin hit), a parked one is woken. {@link IdleSpinTest} checks the rules
 * one by one.
 */
class PumpIdleSpinTest {

    private static final Duration BUDGET = Duration.ofMillis(10);

    @Test
    void afterACrowdedBusyPeriodThePumpParksWithoutSpinning() throws Exception {
        withPump("crowded", pump -> {
            for (int round = 0; round < 5; round++) {
                burst(pump);

                PumpMetrics before = pump.getMetrics();
                Thread.sleep(2); // well inside the spin budget
                runAndWait(pump);
                PumpMetrics after = pump.getMetrics();
                assertEquals(before.spinHits(), after.spinHits(), "round " + round + ": no spin after the burst");
            }
        });
    }

    @Test
    void afterSparseTrafficThePumpStillSpins() throws Exception {
        withPump("sparse", PumpIdleSpinTest::assertSpinsAtSparseTraffic);
    }

    @Test
    void aCrowdedPumpSpinsAgainOnceTrafficThins() throws Exception {
        withPump("thinning", pump -> {
            burst(pump);
            assertSpinsAtSparseTraffic(pump); // the first QUIET_PARKS of its 50 posts wake a parked pump
        });
    }

    /** Runs {@code body} with a started pump of the longest spin budget, then stops the pump. */
    private static void withPump(String name, PumpBody body) throws Exception {
        MessagePump pump = MessagePump.start(PumpConfig.builder(name).spinBudget(BUDGET).build());
        try {
            body.run(pump);
        } finally {
            stop(pump);
        }
    }

    @FunctionalInterface
    private interface PumpBody {
        void run(MessagePump pump) throws Exception;
    }

    private static void assertSpinsAtSparseTraffic(MessagePump pump) throws Exception {
        long hitsBefore = pump.getMetrics().spinHits();
        for (int i = 0; i < 50; i++) {
            Thread.sleep(1);
            runAndWait(pump);
        }
        // A descheduled test thread misses the budget now and then, and a park probe or the
        // parks that end a crowded spell take a few more; most of the 50 posts find it spinning.
        long hits = pump.getMetrics().spinHits() - hitsBefore;
        assertTrue(hits >= 10, "spin hits after one post at a time: " + hits);
    }

    /** Posts {@code 2 * CROWDED} tasks that run in one busy period, and waits until they ran. */
    private static void burst(MessagePump pump) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch burstRan = new CountDownLatch(1);
        pump.execute(() -> await(release)); // the burst queues up behind it
        for (int i = 0; i < 2 * IdleSpin.CROWDED; i++) {
            pump.execute(() -> { });
        }
        pump.execute(burstRan::countDown);
        release.countDown();
        assertTrue(burstRan.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the burst ran");
    }

    private static void runAndWait(MessagePump pump) throws InterruptedException {
        CountDownLatch ran = new CountDownLatch(1);
        pump.execute(ran::countDown);
        assertTrue(ran.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "the post ran");
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(WAIT.toMillis(), TimeUnit.MILLISECONDS), "released");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
