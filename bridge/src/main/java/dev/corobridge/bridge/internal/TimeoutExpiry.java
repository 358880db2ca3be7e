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
 * cancellation by the timer into the timeout failure ({@link #outcomeFor}). So the work is
 * cancelled before anyone awaiting the limited task resumes (work that cleans up after its
 * cancellation, a coroutine's {@code finally} block, may still be running then: kotlinx's
 * {@code withTimeout} block would wait for it, a limited task does not), a source that completed first
 * keeps its value, and an adopted source decides as it always does.
 *
 * <p>Thread-safety: {@link #run} on the timer thread, {@link #outcomeFor} on the thread that
 * decided the source; the volatile {@code fired} is written before the source is cancelled.
 *
 * @param <T> the value type
 */
public final class TimeoutExpiry<T> implements Runnable {
    private final Awaitable<T> source;
    private final Duration limit;
    /** The cancellation the timer sent (its cause: the timeout), set before the source is cancelled. */
    private volatile CancellationException fired;

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
        fired = stop;
        OutcomeCell.cancel(source, stop);
    }

    /**
     * What the limited task becomes when the source ends with {@code o}: the timeout failure if the
     * source was cancelled by this timer's cancellation (the cause, or in its chain of causes);
     * any other cancellation stays one, also after the timer fired (a {@code cancel()} that won
     * just before it returned {@code true}, and the limited task is cancelled).
     */
    public Outcome<T> outcomeFor(Outcome<T> o) {
        CancellationException stop = fired;
        if (stop != null && o instanceof Outcome.Cancelled<T> c && causedBy(c.cause(), stop)) {
            return new Outcome.Failure<>(stop.getCause());
        }
        return o;
    }

    private static boolean causedBy(Throwable cancellation, CancellationException stop) {
        Throwable t = cancellation;
        for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
            if (t == stop || t == stop.getCause()) {
                return true;
            }
        }
        return false;
    }
}
