package dev.corobridge.bridge;

import java.time.Duration;
import java.util.Objects;

/**
 * The time limit of {@link Task#withTimeout(Duration)} passed first: the limited task <b>fails</b>
 * with this exception (its outcome is an {@link Outcome.Failure}) and the work it limits is
 * cancelled (with a {@link java.util.concurrent.CancellationException} whose cause is this).
 *
 * <p>Deliberately not a {@code CancellationException}: whoever awaits the limited task did not
 * cancel anything, so a Java {@code catch (CancellationException e)} must not take a timeout for a
 * cancellation and swallow it, and a Kotlin coroutine that {@code await()}s the task gets a failure
 * it can catch, not a cancellation of itself. (kotlinx's {@code TimeoutCancellationException} is
 * one because its {@code withTimeout} cancels the very block that waits.)
 *
 * <p>A bounded wait, {@code task.join(Duration)}, is something else: it throws
 * {@link java.util.concurrent.TimeoutException} when the wait ends and leaves the work alone.
 */
public class TaskTimeoutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Duration limit;

    /** A timeout of {@code limit}. */
    public TaskTimeoutException(Duration limit) {
        super("timed out after " + Objects.requireNonNull(limit, "limit"));
        this.limit = limit;
    }

    /** The limit that passed. */
    public Duration limit() {
        return limit;
    }
}
