package dev.corobridge.pump;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.lincheck.NoExceptionVerifier;
import dev.corobridge.lincheck.Scenarios;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuarantee;
import org.jetbrains.lincheck.datastructures.ManagedStrategyGuaranteeKt;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Options;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of the {@link WakeupGate} handshake: no lost wake-up.
 *
 * <p><b>The model.</b> One thread is the owner and runs {@link Ops#consume(int)}: the pump's idle
 * protocol ({@code PumpLoop.sleep}) — look for work; if none, {@link WakeupGate#arm() arm},
 * re-check, {@link WakeupGate#park(long) park} without a timeout (a pump with no timer due), then
 * {@link WakeupGate#disarm() disarm} and look again — until it has seen the given number of items.
 * The other threads run {@link Ops#produce()}: publish one item (a volatile write, as a queue
 * offer is), then {@link WakeupGate#wake()}. A wake-up lost anywhere leaves the owner parked for
 * good after the producers finished: every interleaving in which that happens is reported as a
 * hang ("All unfinished threads are in deadlock"). After every interleaving,
 * {@link Ops#atMostOneWakeupPerSleep()} checks that no sleep was woken twice.
 *
 * <p><b>Parking as it really is.</b> Lincheck 3.7's model checker lets {@code LockSupport.park}
 * return spuriously at once, in every interleaving, unless its caller runs in a "silent" analysis
 * section. That would hide exactly the bugs this test looks for: a gate whose {@code wake()} never
 * unparks would pass. So {@link WakeupGate#park(long)} is declared silent ({@link #parkBlocks()});
 * then a park returns only after an unpark (a permit left by an earlier unpark counts, as in the
 * JDK) and the model checker sees the owner block. {@link #aParkNobodyUnparksIsReportedAsAHang()}
 * proves the setting takes effect, so this test cannot pass vacuously.
 *
 * <p>Temporarily broken, the gate fails this test within seconds in each of these ways:
 * {@code arm()} not setting the state, {@code wake()} not unparking, {@code park()} disarming
 * before it parks; and so does an owner that skips the re-check after arming (the model checker
 * finds the one interleaving that loses it: the producers publish between the owner's first look
 * and its {@code arm()}).
 *
 * <p>The stress run executes the same scenarios on real threads with the real
 * {@code LockSupport}, where a lost wake-up is a real hang that Lincheck reports. The randomized
 * stress of the whole pump beside this test is {@code WakeupProtocolStressTest}.
 */
class WakeupGateLincheckTest {

    /** The state of one invocation: a gate, and the count of items the producers published. */
    public static class Ops {
        private final WakeupGate gate = new WakeupGate();
        private final AtomicInteger published = new AtomicInteger();
        /** Items the owner has seen: owner thread only. */
        private int seen;

        /** The owner: the pump's idle protocol until {@code items} more items were seen. */
        @Operation
        public int consume(@Param(gen = IntGen.class, conf = "1:4") int items) {
            gate.bind(Thread.currentThread());
            int target = seen + items;
            while (seen < target) {
                if (published.get() > seen) {
                    seen++; // "runs" the item
                    continue;
                }
                gate.arm();
                if (published.get() > seen) {
                    gate.disarm();
                    continue;
                }
                gate.park(-1);
                gate.disarm();
            }
            return seen;
        }

        /** A producer: publish an item, then wake the owner. */
        @Operation
        public void produce() {
            published.incrementAndGet();
            gate.wake();
        }

        @Validate
        public void atMostOneWakeupPerSleep() {
            if (gate.wakeups() > gate.arms()) {
                throw new AssertionError(gate.wakeups() + " wake-ups for " + gate.arms() + " armings");
            }
        }
    }

    /** The scenarios: an owner against two producers, with one sleep or several in a row. */
    private static <O extends Options<O, ?>> O withScenarios(O options) {
        return options
                .iterations(0) // a random mix could wait for more items than are ever produced
                .verifier(NoExceptionVerifier.class) // nothing to linearize: the failures are hangs and @Validate
                .addCustomScenario(Scenarios.parallel(Ops.class, "consume(4)", "produce; produce", "produce; produce"))
                .addCustomScenario(Scenarios.parallel(Ops.class, "consume(1); consume(2)", "produce; produce", "produce"));
    }

    @Test
    void modelChecking() {
        withScenarios(new ModelCheckingOptions())
                .invocationsPerIteration(3_000)
                .addGuarantee(parkBlocks())
                .check(Ops.class);
    }

    @Test
    void stress() {
        withScenarios(new StressOptions())
                .invocationsPerIteration(20_000)
                .check(Ops.class);
    }

    /**
     * {@link WakeupGate#park(long)} (and {@link NeverUnparked#park()}) as a silent section: its
     * {@code LockSupport.park} does not return without an unpark. Lincheck's guarantee for that,
     * {@code mute()}, is Kotlin-{@code internal}, so Java reaches it by its JVM name.
     */
    private static ManagedStrategyGuarantee parkBlocks() {
        return ManagedStrategyGuaranteeKt
                .forClasses(WakeupGate.class.getCanonicalName(), NeverUnparked.class.getCanonicalName())
                .methods("park")
                .mute$lincheck();
    }

    // ------------------------------------------------------------------ the control

    /** The owner's protocol against producers that never unpark it: must be reported as a hang. */
    public static class NeverUnparked {
        private final AtomicInteger published = new AtomicInteger();

        @Operation
        public void consume() {
            while (published.get() == 0) {
                park();
            }
        }

        @Operation
        public void produce() {
            published.incrementAndGet();
        }

        void park() {
            LockSupport.park(this);
        }
    }

    @Test
    void aParkNobodyUnparksIsReportedAsAHang() {
        LincheckAssertionError e = assertThrows(LincheckAssertionError.class, () -> new ModelCheckingOptions()
                .iterations(0)
                .invocationsPerIteration(100)
                .verifier(NoExceptionVerifier.class)
                .addGuarantee(parkBlocks())
                .addCustomScenario(Scenarios.parallel(NeverUnparked.class, "consume", "produce"))
                .check(NeverUnparked.class));
        assertTrue(e.getMessage().contains("The execution has hung"), e.getMessage());
    }
}
