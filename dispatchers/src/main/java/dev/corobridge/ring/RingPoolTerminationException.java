package dev.corobridge.ring;

import java.util.List;

/**
 * A {@link RingPool} terminated, but not cleanly: the future {@link RingPool#shutdown()} returned
 * completes exceptionally with this, and {@link RingPool#awaitTermination} returns {@code false}.
 * {@link #problems()} says what went wrong — event loops or fallback file threads that did not stop
 * in time, operations still in flight after the grace period, a listening socket or a file that did
 * not close; unexpected errors are attached as suppressed exceptions.
 */
public final class RingPoolTerminationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final transient List<String> problems;

    RingPoolTerminationException(String poolName, List<String> problems) {
        super("RingPool '" + poolName + "' did not terminate cleanly: " + String.join("; ", problems));
        this.problems = List.copyOf(problems);
    }

    /** What went wrong, one entry per problem, in the order shutdown met them. */
    public List<String> problems() {
        return problems;
    }
}
