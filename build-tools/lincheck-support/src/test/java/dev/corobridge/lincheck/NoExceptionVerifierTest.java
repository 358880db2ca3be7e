package dev.corobridge.lincheck;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.verifier.EpsilonVerifier;
import org.jetbrains.lincheck.datastructures.verifier.Verifier;
import org.junit.jupiter.api.Test;

/** {@link NoExceptionVerifier} refuses exactly the runs in which an operation threw. */
class NoExceptionVerifierTest {

    /** A counter whose third increment throws, whichever thread makes it. */
    public static class ThirdFails {
        private final AtomicInteger count = new AtomicInteger();

        @Operation
        public int increment() {
            int n = count.incrementAndGet();
            if (n == 3) {
                throw new IllegalStateException("the third increment");
            }
            return n;
        }
    }

    private static void check(Class<? extends Verifier> verifier, String... threads) {
        new ModelCheckingOptions()
                .iterations(0)
                .invocationsPerIteration(20)
                .verifier(verifier)
                .addCustomScenario(Scenarios.parallel(ThirdFails.class, threads))
                .check(ThirdFails.class);
    }

    @Test
    void acceptsRunsWithoutAnException() {
        check(NoExceptionVerifier.class, "increment", "increment");
    }

    @Test
    void refusesARunInWhichAnOperationThrew() {
        assertThrows(AssertionError.class, () -> check(NoExceptionVerifier.class, "increment; increment", "increment"));
    }

    @Test
    void epsilonVerifierWouldAcceptThatRun() { // why the tests use NoExceptionVerifier
        check(EpsilonVerifier.class, "increment; increment", "increment");
    }
}
