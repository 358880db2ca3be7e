package dev.corobridge.lincheck;

import java.util.List;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionResult;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.kotlinx.lincheck.execution.ResultWithClock;
import org.jetbrains.kotlinx.lincheck.util.ExceptionResult;
import org.jetbrains.kotlinx.lincheck.util.LincheckResult;
import org.jetbrains.lincheck.datastructures.verifier.Verifier;

/**
 * The Lincheck verifier of tests that check their own invariants (a {@code @Validate} function)
 * instead of linearizability: it accepts any results but an exception. Lincheck records an
 * exception thrown by an operation as that operation's result, and its {@code NoExceptionVerifier}
 * accepts every result, so with it an operation that fails (a {@code NullPointerException} in a
 * race, an {@code IllegalStateException} of a broken invariant) passes unseen. An operation that
 * expects an exception catches it itself.
 */
public final class NoExceptionVerifier implements Verifier {

    /** Lincheck's constructor for verifiers; the specification is not used. */
    public NoExceptionVerifier(Class<?> sequentialSpecification) {
    }

    @Override
    public boolean verifyResults(ExecutionScenario scenario, ExecutionResult results) {
        if (anyException(results.getInitResults()) || anyException(results.getPostResults())) {
            return false;
        }
        for (List<ResultWithClock> thread : results.getParallelResultsWithClock()) {
            for (ResultWithClock r : thread) {
                if (r.getResult() instanceof ExceptionResult) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean anyException(List<LincheckResult> results) {
        return results.stream().anyMatch(r -> r instanceof ExceptionResult);
    }
}
