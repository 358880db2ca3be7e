package dev.corobridge.ring;

import dev.corobridge.bridge.ContextShutdownException;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.lincheck.NoExceptionVerifier;
import dev.corobridge.lincheck.Scenarios;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Options;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link RingOp#cancel()} against an engine that settles
 * undoable work (an open, a connect, a bind) at the same moment — with its result, a failure, or the
 * pool's shutdown: {@code cancel()} returns {@code true} exactly when it decided the outcome,
 * whichever side gets there first, and once it has withdrawn the operation the engine only cleans up.
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
 *
 * <p>{@link EngineFails} models the engine settling any other way (a failure, an errno, the pool's
 * shutdown, a value without commit), {@link ConnectArmsCanceller} a connect arming its canceller
 * while cancel() is under way; each class comment says what is checked, and which interleaving broke
 * it before every engine-side settle respected a withdrawal.
 */
class RingOpWithdrawLincheckTest {

    /** {@code cancel()}'s own outcome: cancelled, and not by a shutdown. */
    private static boolean cancelledByCancel(Outcome<?> o) {
        return o instanceof Outcome.Cancelled<?> c && !(c.cause() instanceof ContextShutdownException);
    }

    /**
     * What every model starts from and races: one operation whose undoable work the engine has
     * started, and {@code cancel()}, which writes down what it returned. Lincheck finds the inherited
     * operation (it reads the superclasses too); every scenario here is hand-written (no random ones),
     * so the order in which it lists the operations changes nothing.
     */
    public abstract static class StartedOp {
        protected final RingOp<String> op;
        /** What {@code cancel()} returned; null while it has not. */
        protected volatile Boolean cancelReturned;

        protected StartedOp(RingOp<String> op) {
            if (!op.startWithdrawable()) {
                throw new IllegalStateException("the engine must be able to start the work");
            }
            this.op = op;
        }

        @Operation
        public boolean cancel() {
            boolean decided = op.cancel();
            cancelReturned = decided;
            return decided;
        }

        /** The operation's outcome; an {@link AssertionError} if it never ended. */
        protected Outcome<String> ended() {
            Outcome<String> o = op.outcomeOrNull();
            if (o == null) {
                throw new AssertionError("the operation never ended");
            }
            return o;
        }
    }

    /** One operation whose undoable work has started. */
    public static class Ops extends StartedOp {

        public Ops() {
            super(new RingOp<>("open", "/model"));
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
            Outcome<String> o = ended();
            if (cancelReturned != null && o.isCancelled() != cancelReturned) {
                throw new AssertionError("cancel() returned " + cancelReturned + " but the operation ended " + o);
            }
        }
    }

    /**
     * The engine settles otherwise: a connect or bind whose channel reports a failure, a uring open
     * whose CQE carries an errno other than {@code ECANCELED}, the pool's shutdown, or a value handed
     * over without {@link RingOp#commit()} (a socket read that finds the peer's end). The work has
     * started and its canceller is armed (set-up). The engine settles without asking
     * {@link RingOp#commit()} first, as those paths do. Checked: {@code cancel()} returns {@code true}
     * if and only if it withdrew the operation (then the engine's settle must only clean up), and the
     * operation then ends with cancel()'s own cancellation; a value refused so is released (closed)
     * exactly once, one handed over never. The interleaving that broke it:
     * {@code cancel()} withdraws; the engine's failure or shutdown settles the promise before
     * {@code cancel()} does; {@code cancel()} returns {@code false} for an operation it withdrew.
     */
    public static class EngineFails extends StartedOp {
        private final AtomicInteger released;
        private volatile Boolean valueHandedOver;

        public EngineFails() {
            this(new AtomicInteger());
        }

        private EngineFails(AtomicInteger released) {
            super(new RingOp<String>("connect", "/model").releasingWith(v -> released.incrementAndGet()));
            this.released = released;
            op.armCancel(() -> false); // closes the channel: the engine decides nothing here
        }

        /** A connect or bind that failed (RingConnector, RingServer, the fallback's open). */
        @Operation
        public void engineFails() {
            op.fail(new RingIoException("connect", "/model", Errno.ECONNREFUSED));
        }

        /** A uring open whose CQE carries an errno other than ECANCELED. */
        @Operation
        public void engineFailsWithErrno() {
            op.failErrno(Errno.EIO);
        }

        /** The pool shut down while the work ran (both engines, the connect, the bind). */
        @Operation
        public void engineShutsDown() {
            op.shutDown("the pool is shutting down");
        }

        /** A value handed over without commit() (a read that finds the end of the stream). */
        @Operation
        public boolean engineSucceeds() {
            boolean decided = op.succeed("connection");
            valueHandedOver = decided;
            return decided;
        }

        @Validate
        public void cancelDecidedWhatItWithdrew() {
            Outcome<String> o = ended();
            boolean returned = Boolean.TRUE.equals(cancelReturned);
            if (op.withdrawn() != returned) {
                throw new AssertionError("cancel() " + (op.withdrawn() ? "withdrew" : "did not withdraw")
                        + " the operation but returned " + returned + "; it ended " + o);
            }
            if (cancelledByCancel(o) != returned) {
                throw new AssertionError("cancel() returned " + returned + " but the operation ended " + o);
            }
            if (valueHandedOver != null && released.get() != (valueHandedOver ? 0 : 1)) {
                throw new AssertionError("the value was " + (valueHandedOver ? "handed over" : "refused")
                        + " and released " + released.get() + " times; the operation ended " + o);
            }
        }
    }

    /**
     * The connect's own canceller races {@code cancel()}: the connect arms its canceller (closing the
     * channel) only after starting, so {@code cancel()} may have been called already, and the channel
     * closed by it fails the connect. In this model the connect fails only because its channel was
     * closed, so any failure is one {@code cancel()} caused. Checked: the operation never ends with
     * that failure, and {@code cancel()} returns {@code true} exactly when it withdrew the operation
     * and the operation ended cancelled.
     */
    public static class ConnectArmsCanceller extends StartedOp {
        private volatile boolean channelClosed;

        public ConnectArmsCanceller() {
            super(new RingOp<>("connect", "/model"));
        }

        /** RingConnector.connect after b.connect(): arm the canceller, then the connect completes. */
        @Operation
        public String connectCompletes() {
            op.armCancel(() -> {
                channelClosed = true;
                return false;
            });
            if (channelClosed) {
                op.fail(new RingIoException("connect", "/model", Errno.EBADF, "the channel was closed"));
                return "failed";
            }
            if (!op.commit()) {
                return "closed, not handed out";
            }
            op.succeed("connection");
            return "handed over";
        }

        @Validate
        public void cancelCausedNoFailure() {
            Outcome<String> o = ended();
            if (o instanceof Outcome.Failure<?> f) {
                throw new AssertionError("the connect failed with the error its own cancel() caused (" + f.error()
                        + "); cancel() returned " + cancelReturned);
            }
            boolean returned = Boolean.TRUE.equals(cancelReturned);
            if (op.withdrawn() != returned || cancelledByCancel(o) != returned) {
                throw new AssertionError("cancel() returned " + returned + ", withdrew: " + op.withdrawn()
                        + "; the operation ended " + o);
            }
        }
    }

    private static <O extends Options<O, ?>> O withScenarios(O options) {
        return options
                .iterations(0)
                .verifier(NoExceptionVerifier.class) // the property is checked by @Validate
                .addCustomScenario(Scenarios.parallel(Ops.class, "cancel", "engineFinishes"));
    }

    private static <O extends Options<O, ?>> O engineFailures(O options) {
        return options
                .iterations(0)
                .verifier(NoExceptionVerifier.class)
                .addCustomScenario(Scenarios.parallel(EngineFails.class, "cancel", "engineFails"))
                .addCustomScenario(Scenarios.parallel(EngineFails.class, "cancel", "engineFailsWithErrno"))
                .addCustomScenario(Scenarios.parallel(EngineFails.class, "cancel", "engineShutsDown"))
                .addCustomScenario(Scenarios.parallel(EngineFails.class, "cancel", "engineSucceeds"));
    }

    private static <O extends Options<O, ?>> O connectArming(O options) {
        return options
                .iterations(0)
                .verifier(NoExceptionVerifier.class)
                .addCustomScenario(Scenarios.parallel(ConnectArmsCanceller.class, "cancel", "connectCompletes"));
    }

    @Test
    void modelChecking() {
        withScenarios(new ModelCheckingOptions()).invocationsPerIteration(5_000).check(Ops.class);
    }

    @Test
    void stress() {
        withScenarios(new StressOptions()).invocationsPerIteration(50_000).check(Ops.class);
    }

    @Test
    void engineFailureModelChecking() {
        engineFailures(new ModelCheckingOptions()).invocationsPerIteration(1_000).check(EngineFails.class);
    }

    @Test
    void engineFailureStress() {
        engineFailures(new StressOptions()).invocationsPerIteration(1_000).check(EngineFails.class);
    }

    @Test
    void connectArmingModelChecking() {
        connectArming(new ModelCheckingOptions()).invocationsPerIteration(1_000).check(ConnectArmsCanceller.class);
    }

    @Test
    void connectArmingStress() {
        connectArming(new StressOptions()).invocationsPerIteration(1_000).check(ConnectArmsCanceller.class);
    }
}
