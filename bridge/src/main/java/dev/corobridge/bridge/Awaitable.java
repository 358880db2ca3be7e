package dev.corobridge.bridge;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The await protocol shared by Java and Kotlin: something that completes once, with an
 * {@link Outcome} (value, failure or cancellation).
 *
 * <ul>
 *   <li><b>Fast path.</b> {@link #isDone()} / {@link #outcomeOrNull()} read the outcome without
 *       registering anything.</li>
 *   <li><b>Exactly-once callbacks.</b> {@link #onComplete} runs each registered callback exactly
 *       once, with the outcome; registering after completion still runs it (at once, on the
 *       registering thread). Until then it runs on the thread that completes the awaitable, so keep
 *       it short or hop (see {@link Task#thenOn}). Completions that nest (a callback completes an
 *       awaitable whose callback completes another, as a lock's waiter that releases in its
 *       callback grants the next) run as nested calls up to 32 deep on one thread; deeper ones run
 *       on that thread once the outer callback returns, so a chain of any length runs in bounded
 *       stack, and every callback a completion caused has run when it returns. Do not block in a
 *       callback for what it caused.</li>
 *   <li><b>Result before resume.</b> The outcome is published (a volatile write) before any
 *       callback runs: a callback, or a thread woken by one, always sees it.</li>
 *   <li><b>Waiting.</b> From Kotlin, the suspending {@code await()} extension (the coroutine's own
 *       dispatcher resumes it). From Java, {@link #join()} parks a virtual thread cheaply, blocks a
 *       platform thread, and throws {@link IllegalStateException} on a thread that must never block
 *       (the pump, a ring pool's own loops), naming the fix. The names follow kotlinx ({@code join()} blocks from Java,
 *       {@code await()} suspends in Kotlin), so neither shadows the other.</li>
 * </ul>
 *
 * @param <T> the value type
 */
public interface Awaitable<T> {

    /** Whether the outcome is decided. */
    boolean isDone();

    /** The outcome, or {@code null} while pending. */
    Outcome<T> outcomeOrNull();

    /**
     * Runs {@code callback} exactly once with the outcome: now, on this thread, if already done;
     * otherwise on the completing thread. An exception thrown by the callback is reported to
     * {@link Tasks#uncaughtFailureHandler()} and does not affect other callbacks.
     */
    Registration onComplete(Consumer<? super Outcome<T>> callback);

    /**
     * Cancels, if still pending, with a plain {@link java.util.concurrent.CancellationException}.
     * Returns {@code true} if this call decided the outcome.
     */
    boolean cancel();

    /**
     * Waits for the outcome and returns the value. A failure is rethrown as this awaiter's own
     * exception, so that every awaiter of a shared failure sees only its own trace and the
     * original is never changed:
     * <ul>
     *   <li>unchecked (or an {@link Error}): a copy of the original, of the same class, with the same
     *       message and stack and the original as its cause, carrying the hop trace as a suppressed
     *       {@link HopTraceException} whose stack is this await site (when there is a trace). An
     *       exception that cannot be copied faithfully (a non-public class, fields of its own, no
     *       usable public constructor) is rethrown as it is, without the trace, which
     *       {@code Task.getTrace()} still returns;</li>
     *   <li>checked: wrapped in a new {@link java.util.concurrent.CompletionException} that carries
     *       the trace;</li>
     *   <li>a {@code CompletionException} with a cause (the body joined another task that failed):
     *       a new one around that cause, with the trace, so a failure keeps one wrapper however
     *       many tasks it crossed.</li>
     * </ul>
     * A cancellation throws its {@link java.util.concurrent.CancellationException}. Interrupting the
     * waiting thread stops the wait, not the work.
     *
     * <p>Kotlin code suspends with the {@code await()} extension instead of blocking here.
     *
     * @throws IllegalStateException if called, before the outcome is there, on a thread that must never
     *                               block (the pump, a ring pool's own loops)
     * @throws InterruptedException  if the waiting thread is interrupted
     */
    default T join() throws InterruptedException {
        return Waiting.valueOf(Waiting.block(this, -1), this);
    }

    /**
     * {@link #join()} for at most {@code timeout}; on timeout throws {@link TimeoutException} and
     * leaves the work alone (cancel it yourself if you want it stopped, or use
     * {@code Task.withTimeout}, which does). Kotlin: {@code withTimeout(d) { a.await() }}.
     */
    default T join(Duration timeout) throws InterruptedException, TimeoutException {
        java.util.Objects.requireNonNull(timeout, "timeout");
        long nanos = timeout.isNegative() ? 0 : Waiting.saturatedNanos(timeout);
        Outcome<T> o = Waiting.block(this, nanos);
        if (o == null) {
            throw new TimeoutException("not complete after " + timeout);
        }
        return Waiting.valueOf(o, this);
    }

    /**
     * The value if completed successfully.
     *
     * @throws IllegalStateException if not done, failed or cancelled (with the error as cause)
     */
    default T resultNow() {
        Outcome<T> o = outcomeOrNull();
        if (o instanceof Outcome.Success<T> s) {
            return s.value();
        }
        throw new IllegalStateException(o == null ? "not complete" : "did not succeed: " + o, o == null ? null : o.errorOrNull());
    }

    /** The hop trace of this work, or {@code null} if it keeps none. */
    default HopTrace traceOrNull() {
        return null;
    }
}
