package dev.corobridge.pump;

import dev.corobridge.bridge.ContextShutdownException;
import java.util.concurrent.CancellationException;

/**
 * Cancellation caused by a pump shutting down: the coroutine or task was cancelled so that it
 * could run its cleanup, or its resumption could no longer be delivered to the pump and was sent
 * to the pump's fallback executor instead.
 *
 * <p>A {@link ContextShutdownException}, so a {@link CancellationException} (kotlinx's {@code CancellationException} is the same class),
 * so structured concurrency treats it as a normal cancellation, not as a failure.
 */
public class PumpShutdownException extends ContextShutdownException {

    private static final long serialVersionUID = 1L;

    private final String pumpName;

    public PumpShutdownException(String pumpName, String message) {
        super("MessagePump '" + pumpName + "': " + message);
        this.pumpName = pumpName;
    }

    /** The name of the pump that shut down. */
    public String pumpName() {
        return pumpName;
    }
}
