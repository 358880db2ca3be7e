package dev.corobridge.ring;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.lincheck.Scenarios;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Options;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.lincheck.datastructures.verifier.EpsilonVerifier;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link RingOp#cancel()} against an engine that finishes
 * undoable work (an open) at the same moment: {@code cancel()} returns {@code true} exactly when it
 * decided the outcome, whichever side gets there first.
 *
 * <p><b>The model.</b> The engine has started the work ({@link RingOp#startWithdrawable()}, in the
 * set-up). One thread cancels; the other is the engine finishing, as the fallback engine does when
 * the blocking call returns: {@link RingOp#commit()}, and if {@code cancel()} withdrew the operation
 * meanwhile, undo the result and report it cancelled ({@link RingOp#cancelled()}), else succeed with
 * it. After each interleaving {@link Ops#cancelToldTheTruth()} checks: the operation ended, and it
 * ended cancelled if and only if {@code cancel()} returned {@code true} (only a cancel can withdraw
 * it). The interleaving that broke this (CI, 2026-12-01): {@code cancel()} withdraws, the engine's
 * commit fails and it settles the operation cancelled before {@code cancel()} does, so
 * {@code cancel()} found it settled and returned {@code false} — for a cancellation it decided.
 */
class RingOpWithdrawLincheckTest {

    /** One operation whose undoable work has started. */
    public static class Ops {
        private final RingOp<String> op = new RingOp<>("open", "/model");
        private volatile Boolean cancelReturned;

        public Ops() {
            if (!op.startWithdrawable()) {
                throw new IllegalStateException("the engine must be able to start the work");
            }
        }

        @Operation
        public boolean cancel() {
            boolean decided = op.cancel();
            cancelReturned = decided;
            return decided;
        }

        /** The engine: the blocking call returned a result; hand it over, or undo it. */
        @Operation
        public String engineFinishes() {
            if (!op.commit()) {
                op.cancelled(); // the file opened anyway is closed; the operation reports cancelled
                return "undone";
            }
            op.succeed("file");
            return "handed over";
        }

        @Validate
        public void cancelToldTheTruth() {
            Outcome<String> o = op.outcomeOrNull();
            if (o == null) {
                throw new AssertionError("the operation never ended");
            }
            if (cancelReturned != null && o.isCancelled() != cancelReturned) {
                throw new AssertionError("cancel() returned " + cancelReturned + " but the operation ended " + o);
            }
        }
    }

    private static <O extends Options<O, ?>> O withScenarios(O options) {
        return options
                .iterations(0)
                .verifier(EpsilonVerifier.class) // the property is checked by @Validate
                .addCustomScenario(Scenarios.parallel(Ops.class, "cancel", "engineFinishes"));
    }

    @Test
    void modelChecking() {
        withScenarios(new ModelCheckingOptions()).invocationsPerIteration(5_000).check(Ops.class);
    }

    @Test
    void stress() {
        withScenarios(new StressOptions()).invocationsPerIteration(50_000).check(Ops.class);
    }
}
