package dev.corobridge.bridge;

import java.time.Duration;
import java.util.concurrent.CancellationException;

/**
 * Cancellation because a time limit passed ({@link Task#withTimeout(Duration)}, {@link
 * Awaitable#await(Duration)} does not cancel and throws {@link java.util.concurrent.TimeoutException}
 * instead). A {@link CancellationException}, like kotlinx's {@code TimeoutCancellationException}.
 */
public class TaskTimeoutException extends CancellationException {

    private static final long serialVersionUID = 1L;

    private final transient Duration limit;

    public TaskTimeoutException(Duration limit) {
        super("timed out after " + limit);
        this.limit = limit;
    }

    /** The limit that passed. */
    public Duration limit() {
        return limit;
    }
}
