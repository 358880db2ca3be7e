package dev.corobridge.pump;

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
 * Lincheck model checking and stress of {@link PumpAdmission}: nothing is enqueued after the drain
 * that follows {@link PumpAdmission#close()}.
 *
 * <p><b>The model.</b> Producers run {@link Ops#post()}: {@code enter()}, and if admitted, enqueue
 * (a count stands for the queue) and {@code exit()}, as {@code MessagePump.enqueue} does. One
 * thread runs {@link Ops#closeAndDrain()}: {@code close()}, then take everything queued, as a
 * terminating pump does. After every interleaving {@link Ops#nothingQueuedAfterTheDrain()} checks
 * that the queue is empty: an item admitted but enqueued after the drain would be lost for good
 * (the pump never runs again), and that no producer's count was left in the word.
 *
 * <p>Temporarily broken, the admission fails the model checker within seconds: an {@code enter()}
 * that reads the closed bit and then increments (instead of one increment that returns the bit)
 * lets the close set the bit and find no producer between the two, and the producer's item lands
 * after the drain.
 */
class PumpAdmissionLincheckTest {

    /** One invocation: an admission and a count standing for its queue. */
    public static class Ops {
        private final PumpAdmission admission = new PumpAdmission();
        private final AtomicInteger queued = new AtomicInteger();

        /** A producer's post: whether it was admitted (and so enqueued). */
        @Operation
        public boolean post() {
            if (!admission.enter()) {
                return false;
            }
            try {
                queued.incrementAndGet();
            } finally {
                admission.exit();
            }
            return true;
        }

        /** The terminating pump: close, then drain once; returns what it drained. */
        @Operation
        public int closeAndDrain() {
            admission.close();
            return queued.getAndSet(0);
        }

        @Validate
        public void nothingQueuedAfterTheDrain() {
            if (queued.get() != 0) {
                throw new AssertionError(queued.get() + " item(s) enqueued after the drain that followed close()");
            }
            if ((admission.get() & ~(1 << 30)) != 0) {
                throw new AssertionError("a producer's count was left behind: " + admission);
            }
        }
    }

    private static <O extends Options<O, ?>> O withScenarios(O options) {
        return options
                .iterations(0)
                .verifier(NoExceptionVerifier.class) // nothing to linearize: the failures are @Validate's
                .addCustomScenario(Scenarios.parallel(Ops.class, "closeAndDrain", "post; post", "post; post"))
                .addCustomScenario(Scenarios.scenario(Ops.class, "post", "", "post; closeAndDrain", "post", "post"));
    }

    @Test
    void modelChecking() {
        withScenarios(new ModelCheckingOptions()).invocationsPerIteration(5_000).check(Ops.class);
    }

    @Test
    void stress() {
        withScenarios(new StressOptions()).invocationsPerIteration(20_000).check(Ops.class);
    }
}
