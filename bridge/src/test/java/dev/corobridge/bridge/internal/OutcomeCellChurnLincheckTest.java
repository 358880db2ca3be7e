package dev.corobridge.bridge.internal;

import static dev.corobridge.bridge.SettleCalls.describe;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Registration;
import dev.corobridge.bridge.SettleCalls;
import dev.corobridge.lincheck.Scenarios;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link OutcomeCell} under waiter churn: registrations,
 * withdrawals (which prune the stack) and settle calls race.
 *
 * <p>Every invocation starts on a cell one withdrawal away from a prune: two callbacks registered
 * first and kept (the scenario may withdraw them), then {@value OutcomeCell#PRUNE_AT} registered
 * and withdrawn ones, which prune the stack once (so the two kept callbacks already sit in the
 * stack as copies), then {@code PRUNE_AT - 1} more registered and withdrawn ones. The scenario's
 * first withdrawal therefore builds a copy of a stack of copies and installs it while other
 * threads register, withdraw (through the original nodes) and settle.
 *
 * <p>The results (which settle call won) are checked for linearizability against the cell run
 * sequentially; after each interleaving {@link Ops#checkCallbacksAndMemory()} checks:
 * <ul>
 *   <li>exactly one settle call won if the cell is decided, none if it is pending;</li>
 *   <li>a kept callback ran exactly once if the cell is decided (never if pending), with the
 *       outcome, which the cell already showed; a withdrawn one ran at most once, and never if it
 *       was withdrawn before the first settle call started; the callbacks withdrawn before the
 *       scenario never ran;</li>
 *   <li>registration order: of two callbacks the settle call ran, the one whose registration
 *       returned before the other's started ran first;</li>
 *   <li>memory, if the cell is pending: it keeps every live callback, fewer withdrawn ones than
 *       {@code max(PRUNE_AT, live)}, and its count of withdrawn nodes equals the withdrawn nodes it
 *       keeps.</li>
 * </ul>
 * Walking the stack of about 20 nodes is a bounded loop, so the model checker is told not to take
 * it for a spin loop before 100 iterations. The deterministic leak tests are
 * {@code OutcomeCellWaiterChurnTest}.
 */
public class OutcomeCellChurnLincheckTest {

    private static final VarHandle WITHDRAWN_COUNT;

    static {
        try {
            WITHDRAWN_COUNT = MethodHandles.privateLookupIn(Promise.class, MethodHandles.lookup())
                    .findVarHandle(Promise.class, "withdrawn", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The state of one invocation and its operations. */
    public static class Ops {

        private final Promise<Integer> cell = new Promise<>();
        /** The settle calls, and the logical clock that orders registrations and withdrawals against them. */
        private final SettleCalls settles = new SettleCalls(cell);
        /** The callbacks the scenario may withdraw (the two kept before it first), in registration order. */
        private final ConcurrentLinkedDeque<Watched> watched = new ConcurrentLinkedDeque<>();
        /** The order in which callbacks ran. */
        private final AtomicInteger runOrder = new AtomicInteger();
        /** Runs of the callbacks withdrawn before the scenario: must stay 0. */
        private final AtomicInteger withdrawnBeforeRuns = new AtomicInteger();

        public Ops() {
            register();
            register();
            for (int i = 0; i < 2 * OutcomeFields.PRUNE_AT - 1; i++) { // the 16th withdrawal prunes
                cell.onComplete(o -> withdrawnBeforeRuns.incrementAndGet()).dispose();
            }
        }

        /** One callback registered by the scenario (or before it). */
        private final class Watched {
            final AtomicInteger runs = new AtomicInteger();
            final AtomicReference<Outcome<Integer>> seen = new AtomicReference<>();
            final AtomicReference<Outcome<Integer>> cellShowed = new AtomicReference<>();
            final AtomicBoolean withdrawn = new AtomicBoolean();
            /** Clock readings: registration started and returned, withdrawal returned (0: not yet). */
            long registerStart;
            long registered;
            final AtomicLong withdrawnAt = new AtomicLong();
            /** When it ran, by {@link #runOrder}; -1 if it did not. */
            volatile int ranAs = -1;
            Registration registration;

            void register() {
                registerStart = settles.tick();
                registration = cell.onComplete(o -> {
                    seen.set(o);
                    cellShowed.set(cell.outcomeOrNull());
                    ranAs = runOrder.getAndIncrement();
                    runs.incrementAndGet();
                });
                registered = settles.tick();
            }

            /** Run by the settle call, not at once by a registration that came after it. */
            boolean ranByDecider() {
                return registration != Registration.NONE;
            }

            void withdraw() {
                registration.dispose();
                withdrawnAt.set(settles.tick());
            }
        }

        @Operation
        public boolean complete(@Param(gen = IntGen.class, conf = "1:2") int value) {
            return settles.complete(value);
        }

        @Operation
        public boolean fail() {
            return settles.fail();
        }

        @Operation
        public boolean cancel() {
            return settles.cancel();
        }

        @Operation
        public void register() {
            Watched w = new Watched();
            w.register();
            watched.add(w); // once registered: only then can a withdrawal find it
        }

        /** Withdraws the oldest callback not withdrawn yet: at the bottom of the stack. */
        @Operation
        public void withdrawOldest() {
            withdrawFirst(watched.iterator());
        }

        /** Withdraws the newest callback not withdrawn yet: near the top of the stack. */
        @Operation
        public void withdrawNewest() {
            withdrawFirst(watched.descendingIterator());
        }

        private static void withdrawFirst(Iterator<Watched> candidates) {
            while (candidates.hasNext()) {
                Watched w = candidates.next();
                if (w.withdrawn.compareAndSet(false, true)) {
                    w.withdraw();
                    return;
                }
            }
        }

        @Validate
        public void checkCallbacksAndMemory() {
            Outcome<Integer> outcome = cell.outcomeOrNull();
            List<String> problems = new ArrayList<>();
            if (settles.winners() != (outcome == null ? 0 : 1)) {
                problems.add(settles.winners() + " settle calls returned true; cell " + describe(outcome));
            }
            if (withdrawnBeforeRuns.get() != 0) {
                problems.add(withdrawnBeforeRuns.get() + " runs of callbacks withdrawn before the scenario");
            }
            List<Watched> all = new ArrayList<>(watched);
            int live = 0;
            for (int i = 0; i < all.size(); i++) {
                Watched w = all.get(i);
                String name = "callback #" + i + (w.withdrawn.get() ? " (withdrawn)" : "");
                int runs = w.runs.get();
                if (!w.withdrawn.get()) {
                    live++;
                }
                if (runs > 1 || (!w.withdrawn.get() && runs != (outcome == null ? 0 : 1))) {
                    problems.add(name + " ran " + runs + " times; cell " + describe(outcome));
                }
                if (runs == 1 && settles.withdrawnBeforeAnySettle(w.withdrawnAt.get())) {
                    problems.add(name + " ran although it was withdrawn before any settle call started");
                }
                if (runs == 1 && (w.seen.get() != outcome || w.cellShowed.get() != outcome)) {
                    problems.add(name + " saw " + describe(w.seen.get()) + " while the cell showed "
                            + describe(w.cellShowed.get()) + "; it is " + describe(outcome));
                }
                for (int j = 0; j < all.size(); j++) {
                    Watched later = all.get(j);
                    if (runs == 1 && later.runs.get() == 1 && w.ranByDecider() && later.ranByDecider()
                            && w.registered < later.registerStart && w.ranAs > later.ranAs) {
                        problems.add(name + " ran after callback #" + j + ", registered after it");
                    }
                }
            }
            if (outcome == null) {
                int retained = RetainedCallbacks.of(cell);
                int withdrawnKept = retained - live;
                int counted = (int) WITHDRAWN_COUNT.getVolatile(cell);
                if (withdrawnKept < 0) {
                    problems.add("the cell keeps " + retained + " callbacks but " + live + " are live");
                }
                if (withdrawnKept >= Math.max(OutcomeFields.PRUNE_AT, live)) {
                    problems.add("the cell keeps " + withdrawnKept + " withdrawn callbacks for " + live + " live ones");
                }
                if (counted != withdrawnKept) {
                    problems.add("the cell counts " + counted + " withdrawn callbacks but keeps " + withdrawnKept);
                }
            }
            if (!problems.isEmpty()) {
                throw new AssertionError(String.join("; ", problems));
            }
        }
    }

    /** Random scenarios from the cell one withdrawal away from a prune. */
    @Test
    void modelChecking() {
        new ModelCheckingOptions()
                .iterations(10)
                .invocationsPerIteration(250)
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(0)
                .actorsAfter(2)
                .loopIterationsBeforeThreadSwitch(100)
                .check(Ops.class);
    }

    /** Hand-written races that every run explores. */
    @Test
    void modelCheckingTargetedRaces() {
        new ModelCheckingOptions()
                .iterations(0)
                .invocationsPerIteration(400)
                .loopIterationsBeforeThreadSwitch(100)
                // A prune races a registration (its compare-and-set may lose): pending at the end, so
                // the memory check applies.
                .addCustomScenario(Scenarios.parallel(Ops.class, "withdrawNewest", "register"))
                // Two withdrawals race: one prunes, the other is counted while it does (or prunes itself).
                .addCustomScenario(Scenarios.parallel(Ops.class, "withdrawOldest", "withdrawNewest", "register"))
                // A prune races a registration and a settle call: exactly once, in order.
                .addCustomScenario(Scenarios.parallel(Ops.class, "withdrawNewest", "register", "complete(1)"))
                // Withdrawals through original nodes of copies race the prune that copies them again.
                .addCustomScenario(Scenarios.parallel(Ops.class, "withdrawNewest; withdrawOldest", "withdrawOldest; register", "cancel"))
                .check(Ops.class);
    }

    @Test
    void stress() {
        new StressOptions()
                .iterations(20)
                .invocationsPerIteration(1_500)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(0)
                .actorsAfter(2)
                .check(Ops.class);
    }
}
