package dev.corobridge.bridge;

/**
 * A completion callback's registration. {@link #dispose()} withdraws the callback if it has not
 * run yet (an awaiter that gave up); it never interrupts one that is running. Idempotent.
 */
@FunctionalInterface
public interface Registration {

    /** A registration with nothing to withdraw. */
    Registration NONE = () -> { };

    void dispose();
}
