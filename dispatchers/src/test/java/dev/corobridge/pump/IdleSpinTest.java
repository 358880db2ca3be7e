package dev.corobridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The idle pump's spin decision, rule by rule (no threads, no timing: {@link PumpIdleSpinTest} runs a pump). */
class IdleSpinTest {

    /** One idle after a busy period of {@code ran} items; the spin (if any) hits. Returns whether it spun. */
    private static boolean idleWithHit(IdleSpin s, int ran) {
        s.ran(ran);
        boolean spun = s.wentIdle();
        if (spun) {
            s.spinHit();
        } else {
            s.parked(true);
        }
        return spun;
    }

    @Test
    void aFreshPumpSpins() {
        assertTrue(new IdleSpin(true).wentIdle());
    }

    @Test
    void aPumpWithoutSpinBudgetNeverSpinsNorGetsCrowded() {
        IdleSpin s = new IdleSpin(false);
        for (int i = 0; i < 100; i++) {
            s.ran(IdleSpin.CROWDED);
            assertFalse(s.wentIdle());
            s.parked(true);
        }
        assertFalse(s.isCrowded());
    }

    @Test
    void missesTurnSpinningOffButForAProbeEverySixteenthIdle() {
        IdleSpin s = new IdleSpin(true);
        int spinsInARow = 0;
        while (s.wentIdle()) { // every spin misses
            s.spinMissed();
            s.parked(true);
            spinsInARow++;
        }
        assertEquals(5, spinsInARow, "16 halved to 0 in five misses");
        int spins = 0;
        for (int i = 1; i < 10 * IdleSpin.SPIN_PROBE_EVERY; i++) { // one idle was counted above
            if (s.wentIdle()) {
                spins++;
                s.spinMissed();
            }
            s.parked(true);
        }
        assertEquals(10, spins, "one spin per 16 idles (idles 2 to 160 of the count)");
    }

    @Test
    void aHitAfterAProbeTurnsSpinningBackOn() {
        IdleSpin s = new IdleSpin(true);
        while (s.wentIdle()) {
            s.spinMissed();
        }
        while (!s.wentIdle()) {
            // until the probe
        }
        s.spinHit();
        assertTrue(s.wentIdle());
    }

    /** A long busy period, then a probe's park that gathers a crowd: the pump is crowded. */
    private static void crowd(IdleSpin s) {
        assertFalse(idleWithHit(s, IdleSpin.CROWDED), "a long busy period: the next idle is a probe");
        assertFalse(idleWithHit(s, IdleSpin.CROWDED), "the probe's park gathered a crowd: parks");
        assertTrue(s.isCrowded());
    }

    @Test
    void aLongBusyPeriodWhoseProbeGathersFewLeavesThePumpSpinning() {
        IdleSpin s = new IdleSpin(true);
        assertFalse(idleWithHit(s, IdleSpin.CROWDED), "probe");
        assertFalse(s.isCrowded());
        assertTrue(idleWithHit(s, 1), "the park gathered one post: spins");
        assertFalse(s.isCrowded());
    }

    @Test
    void aCrowdedPumpParksUntilFourQuietParksInARow() {
        IdleSpin s = new IdleSpin(true);
        crowd(s);
        for (int i = 0; i < IdleSpin.QUIET_PARKS - 1; i++) {
            assertFalse(idleWithHit(s, 1), "still crowded after " + (i + 1) + " quiet parks");
        }
        assertTrue(idleWithHit(s, 1), "spins after " + IdleSpin.QUIET_PARKS + " quiet parks");
        assertFalse(s.isCrowded());
    }

    @Test
    void aCrowdedParkInBetweenStartsTheQuietCountAgain() {
        IdleSpin s = new IdleSpin(true);
        crowd(s);
        idleWithHit(s, 1);
        idleWithHit(s, 1);
        idleWithHit(s, IdleSpin.CROWDED + 5);
        for (int i = 0; i < IdleSpin.QUIET_PARKS - 1; i++) {
            assertFalse(idleWithHit(s, 1));
        }
        assertTrue(idleWithHit(s, 1));
    }

    @Test
    void aBusyPeriodSplitOverIterationsCountsWhole() {
        IdleSpin s = new IdleSpin(true);
        s.wentIdle();
        s.parked(true);
        for (int i = 0; i < IdleSpin.CROWDED; i++) {
            s.ran(1);
        }
        s.ran(0);
        assertFalse(s.wentIdle());
        assertTrue(s.isCrowded());
    }

    @Test
    void aSpinningPumpParksEverySixtyFourthIdleAfterAFewPostsToProbe() {
        IdleSpin s = new IdleSpin(true);
        int parks = 0;
        for (int i = 0; i < 10 * IdleSpin.PARK_PROBE_EVERY; i++) {
            if (!idleWithHit(s, IdleSpin.PROBE_FROM)) {
                parks++;
            }
        }
        assertEquals(10, parks);
        assertFalse(s.isCrowded(), "each probe's park gathered few posts");
    }

    @Test
    void aProbeThatGathersACrowdMakesThePumpCrowded() {
        IdleSpin s = new IdleSpin(true);
        for (int i = 0; i < IdleSpin.PARK_PROBE_EVERY - 1; i++) {
            assertTrue(idleWithHit(s, IdleSpin.PROBE_FROM));
        }
        assertFalse(idleWithHit(s, IdleSpin.PROBE_FROM), "the probe parks");
        assertFalse(idleWithHit(s, IdleSpin.CROWDED), "the park gathered a crowd");
        assertTrue(s.isCrowded());
    }

    @Test
    void oneOrTwoProducersInPingPongNeverPayAProbe() {
        IdleSpin s = new IdleSpin(true);
        for (int i = 0; i < 100 * IdleSpin.PARK_PROBE_EVERY; i++) {
            assertTrue(idleWithHit(s, 1 + i % (IdleSpin.PROBE_FROM - 1)), "idle " + i);
        }
    }

    @Test
    void withoutCrowdingTheOldSpinStays() {
        IdleSpin s = new IdleSpin(true, false);
        for (int i = 0; i < 10 * IdleSpin.PARK_PROBE_EVERY; i++) {
            assertTrue(idleWithHit(s, IdleSpin.CROWDED * 2), "idle " + i);
        }
        assertFalse(s.isCrowded());
    }
}
