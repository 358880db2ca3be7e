package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.TaskTimeoutException;
import java.time.Duration;
import java.util.concurrent.CancellationException;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>The timer of {@code Task.withTimeout}. When the limit passes it cancels the source with a
 * cancellation caused by a {@link TaskTimeoutException}; the source's outcome then reaches the
 * limited task through the callback that {@code withTimeout} registered, which turns a
 * cancellation after the timer fired into the timeout failure ({@link #outcomeFor}). So the
 * work is stopped before anyone awaiting the limited task resumes, a source that completed
 * first keeps its value, and an adopted source decides as it always does.
 *
 * <p>Thread-safety: {@link #run} on the timer thread, {@link #outcomeFor} on the thread that
 * decided the source; the volatile {@code fired} is written before the source is cancelled.
 *
 * @param <T> the value type
 */
public final class TimeoutExpiry<T> implements Runnable {
    private final Awaitable<T> source;
    private final Duration limit;
    /** Set when the timer fires, before the source is cancelled. */
    private volatile TaskTimeoutException fired;

    /** The timer that limits {@code source} to {@code limit}. */
    public TimeoutExpiry(Awaitable<T> source, Duration limit) {
        this.source = source;
        this.limit = limit;
    }

    @Override
    public void run() {
        TaskTimeoutException timeout = new TaskTimeoutException(limit);
        CancellationException stop = new CancellationException("timed out after " + limit);
        stop.initCause(timeout);
        fired = timeout;
        OutcomeCell.cancel(source, stop);
    }

    /** What the limited task becomes when the source ends with {@code o}. */
    public Outcome<T> outcomeFor(Outcome<T> o) {
        TaskTimeoutException timeout = fired;
        return timeout != null && o instanceof Outcome.Cancelled ? new Outcome.Failure<>(timeout) : o;
    }
}
