package dev.corobridge.bridge;

/**
 * Attached as a suppressed exception to a failure rethrown by {@link Awaitable#join()}: its
 * message lists the hops the task made (context, thread, note) and its own stack trace is the
 * await site, so the log shows where the failure happened, where it travelled, and who awaited it.
 * One per awaiter, on that awaiter's own copy of the failure: the task's original exception never
 * carries one.
 */
public final class HopTraceException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    HopTraceException(String taskName, HopTrace trace) {
        super("task " + taskName + " hops:\n" + trace);
    }
}
