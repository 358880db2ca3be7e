package dev.corobridge.bridge;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import static dev.corobridge.bridge.SettleCalls.describe;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import dev.corobridge.lincheck.Scenarios;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link Promise}: exactly-once completion and callbacks.
 *
 * <p>Threads race {@code complete} / {@code fail} / {@code cancel}, callback registrations and
 * withdrawals, and reads of the outcome. Lincheck checks that every interleaving is linearizable
 * against the promise run sequentially (so exactly one settle call returns {@code true}, and what
 * {@code outcome()} and {@code isDone()} report is consistent with it), and after each interleaving
 * {@link Ops#callbacksRanExactlyOnceWithTheWinningOutcome()} checks that exactly one settle call won
 * if the promise is done (none if it is pending), and the callbacks: a kept callback ran
 * exactly once if the promise is done (never if it is pending), with the winning outcome, and the
 * promise already showed that outcome while the callback ran; a withdrawn callback ran at most once,
 * and never if its withdrawal returned before the first settle call started.
 *
 * <p>Random scenarios start on a fresh promise, with no operations before the parallel part (one
 * settle call there would leave nothing to race). Hand-written scenarios start on
 * {@link Ops.AfterWithdrawals}: one kept callback and, on top of it, 15 registered and withdrawn
 * ones (none of which may ever run; one fewer than the promise prunes at), so the scenario's first
 * withdrawal prunes the stack: a copy without the withdrawn callbacks replaces it while other
 * threads register, withdraw and settle, and withdrawing a callback that was copied must still work
 * through the original. Walking those 16 and more callbacks is a bounded loop, so the model checker is told not to take it for a spin loop before
 * 100 iterations (at its default of 10 it switches threads inside the walk in every interleaving,
 * and "withdrawn, then settled" is never explored).
 *
 * <p>The randomized stress beside this test is {@code PromiseRaceStressTest}.
 */
public class PromiseLincheckTest {

    /** The state of one invocation and its operations. */
    public static class Ops {

        /**
         * Withdrawn callbacks before a hand-written scenario: one fewer than OutcomeCell's
         * {@code PRUNE_AT}, so that one more withdrawal prunes the stack.
         */
        private static final int WITHDRAWN_BEFORE = 15;

        private final Promise<Integer> promise = new Promise<>();
        /** The settle calls, and the logical clock that orders withdrawals against them. */
        private final SettleCalls settles = new SettleCalls(promise);
        /** The callbacks the scenario registered, in registration order. */
        private final ConcurrentLinkedQueue<Watched> watched = new ConcurrentLinkedQueue<>();
        /** Runs of the callbacks registered and withdrawn before the scenario: must stay 0. */
        private final AtomicInteger withdrawnRuns = new AtomicInteger();

        /** A fresh promise: the random scenarios' start. */
        public Ops() {
            this(0);
        }

        /**
         * A promise with, if {@code withdrawnBefore > 0}, one kept callback and {@code withdrawnBefore}
         * registered and withdrawn callbacks on top of it.
         */
        protected Ops(int withdrawnBefore) {
            if (withdrawnBefore > 0) {
                register();
            }
            for (int i = 0; i < withdrawnBefore; i++) {
                promise.onComplete(o -> withdrawnRuns.incrementAndGet()).dispose();
            }
        }

        /**
         * The start of the hand-written scenarios: 15 withdrawn callbacks on the kept one, so the
         * scenario's first withdrawal prunes the stack and copies the callbacks still kept; a later
         * withdrawOldest() withdraws a copied one through its original node.
         */
        public static class AfterWithdrawals extends Ops {
            public AfterWithdrawals() {
                super(WITHDRAWN_BEFORE);
            }
        }

        /** One callback registered by the scenario: how often it ran, what it saw, whether withdrawn. */
        private final class Watched {
            final AtomicInteger runs = new AtomicInteger();
            final AtomicReference<Outcome<Integer>> seen = new AtomicReference<>();
            /** What the promise showed while the callback ran: must already be the outcome it got. */
            final AtomicReference<Outcome<Integer>> promiseShowed = new AtomicReference<>();
            final AtomicBoolean withdrawn = new AtomicBoolean();
            /** The clock when dispose() returned; 0 while it has not. */
            final AtomicLong withdrawnAt = new AtomicLong();
            Registration registration;

            /** Registers the callback; the caller publishes this object only afterwards. */
            void register() {
                registration = promise.onComplete(o -> {
                    seen.set(o);
                    promiseShowed.set(promise.outcomeOrNull());
                    runs.incrementAndGet();
                });
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
        public boolean isDone() {
            return promise.isDone();
        }

        @Operation
        public String outcome() {
            return describe(promise.outcomeOrNull());
        }

        @Operation
        public void register() {
            Watched w = new Watched();
            w.register();
            watched.add(w); // once registered: only then can withdrawOldest() find it
        }

        /** Withdraws the oldest callback not withdrawn yet (racing its run if the promise settles). */
        @Operation
        public void withdrawOldest() {
            for (Watched w : watched) {
                if (w.withdrawn.compareAndSet(false, true)) {
                    w.registration.dispose();
                    w.withdrawnAt.set(settles.tick());
                    return;
                }
            }
        }

        @Validate
        public void callbacksRanExactlyOnceWithTheWinningOutcome() {
            Outcome<Integer> outcome = promise.outcomeOrNull();
            List<String> problems = new ArrayList<>();
            if (settles.winners() != (outcome == null ? 0 : 1)) {
                problems.add(settles.winners() + " settle calls returned true; promise " + describe(outcome));
            }
            if (withdrawnRuns.get() != 0) {
                problems.add(withdrawnRuns.get() + " runs of callbacks withdrawn before the scenario");
            }
            int i = 0;
            for (Watched w : watched) {
                String name = "callback #" + i++ + (w.withdrawn.get() ? " (withdrawn)" : "");
                int runs = w.runs.get();
                if (runs > 1 || (!w.withdrawn.get() && runs != (outcome == null ? 0 : 1))) {
                    problems.add(name + " ran " + runs + " times; promise " + describe(outcome));
                }
                if (runs == 1 && settles.withdrawnBeforeAnySettle(w.withdrawnAt.get())) {
                    problems.add(name + " ran although it was withdrawn before any settle call started");
                }
                if (runs == 1 && w.seen.get() != outcome) {
                    problems.add(name + " saw " + describe(w.seen.get()) + " but the promise is " + describe(outcome));
                }
                if (runs == 1 && w.promiseShowed.get() != w.seen.get()) {
                    problems.add(name + " ran while the promise showed " + describe(w.promiseShowed.get()));
                }
            }
            if (!problems.isEmpty()) {
                throw new AssertionError(String.join("; ", problems));
            }
        }
    }

    /** Random scenarios: no operations before the parallel part, so the races start on a pending promise. */
    @Test
    void modelChecking() {
        new ModelCheckingOptions()
                .iterations(15)
                .invocationsPerIteration(400)
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(0)
                .actorsAfter(2)
                .check(Ops.class);
    }

    /** Hand-written races that every run explores, on a stack about to be pruned (see the class comment). */
    @Test
    void modelCheckingTargetedRaces() {
        Class<?> c = Ops.AfterWithdrawals.class;
        new ModelCheckingOptions()
                .iterations(0)
                .invocationsPerIteration(600)
                .loopIterationsBeforeThreadSwitch(100)
                // The first withdrawal prunes the stack while two settle calls race it.
                .addCustomScenario(Scenarios.scenario(c, "", "isDone; outcome", "register; withdrawOldest", "complete(1)", "cancel"))
                // A prune races a settle and another registration; then a withdrawal through the copy.
                .addCustomScenario(Scenarios.parallel(c, "register; withdrawOldest; withdrawOldest", "fail", "register"))
                // Readers of the outcome race the settle calls and a prune.
                .addCustomScenario(Scenarios.parallel(c, "complete(2); isDone", "register; outcome", "withdrawOldest; cancel"))
                .check(c);
    }

    @Test
    void stress() {
        new StressOptions()
                .iterations(30)
                .invocationsPerIteration(2_000)
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(0)
                .actorsAfter(2)
                .check(Ops.class);
    }
}
