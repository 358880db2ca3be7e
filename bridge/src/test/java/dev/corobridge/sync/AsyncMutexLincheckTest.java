package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.lincheck.NoExceptionVerifier;
import dev.corobridge.lincheck.Scenarios;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link AsyncMutex}'s Java face: the lock is never held
 * twice or lost under cancellation. Three threads lock (waiting while it is held), try to lock,
 * unlock what they hold and cancel pending or granted locks, in every interleaving; see
 * {@link PermitLincheckOps} for what is checked (a mutex is one permit: available means unlocked).
 * The randomized stress beside this test is {@code PermitCancellationRaceTest}.
 */
class AsyncMutexLincheckTest {

    public static class Ops extends PermitLincheckOps {
        private final AsyncMutex mutex = new AsyncMutex();

        public Ops() {
            super(1);
        }

        @Override
        @SuppressWarnings("deprecation")
        protected Awaitable<Void> startAcquire() {
            return mutex.lockAsync();
        }

        @Override
        protected boolean tryTake() {
            return mutex.tryLock();
        }

        @Override
        protected void give() {
            mutex.unlock();
        }

        @Override
        protected int available() {
            return mutex.isLocked() ? 0 : 1;
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
                // Locked, then a waiter handed the lock by an unlock while it is being cancelled.
                .addCustomScenario(Scenarios.scenario(Ops.class, "acquire; acquire", "",
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
