package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.lincheck.NoExceptionVerifier;
import dev.corobridge.lincheck.Scenarios;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link AsyncSemaphore}'s Java face: permits are conserved
 * under cancellation. Three threads acquire (waiting when both permits are taken), try to acquire,
 * release what they hold and cancel pending or granted acquisitions, in every interleaving; see
 * {@link PermitLincheckOps} for what is checked. The randomized stress beside this test is
 * {@code PermitCancellationRaceTest}.
 */
class AsyncSemaphoreLincheckTest {

    /** A semaphore of two permits. */
    public static class Ops extends PermitLincheckOps {
        private final AsyncSemaphore semaphore = new AsyncSemaphore(2);

        public Ops() {
            super(2);
        }

        @Override
        @SuppressWarnings("deprecation")
        protected Awaitable<Void> startAcquire() {
            return semaphore.acquireAsync();
        }

        @Override
        protected boolean tryTake() {
            return semaphore.tryAcquire();
        }

        @Override
        protected void give() {
            semaphore.release();
        }

        @Override
        protected int available() {
            return semaphore.getAvailablePermits();
        }
    }

    @Test
    void modelChecking() {
        new ModelCheckingOptions()
                .iterations(8)
                .invocationsPerIteration(250)
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(0)
                .actorsAfter(2)
                .verifier(NoExceptionVerifier.class)
                // Both permits taken, then a waiter granted by a release while it is being cancelled.
                .addCustomScenario(Scenarios.scenario(Ops.class, "acquire; acquire; acquire", "",
                        "release", "cancel", "tryAcquire"))
                .check(Ops.class);
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
                .verifier(NoExceptionVerifier.class)
                .check(Ops.class);
    }
}
