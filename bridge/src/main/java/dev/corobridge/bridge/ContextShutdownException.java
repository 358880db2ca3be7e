package dev.corobridge.bridge;

import java.util.concurrent.CancellationException;

/**
 * Cancellation because the execution context (a pump, a ring, a pool) shut down before the work
 * could run or resume there. Distinguishable from a plain cancel and from a failure.
 */
public class ContextShutdownException extends CancellationException {

    private static final long serialVersionUID = 1L;

    public ContextShutdownException(String message) {
        super(message);
    }
}
