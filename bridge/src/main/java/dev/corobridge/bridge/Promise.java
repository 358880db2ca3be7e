package dev.corobridge.bridge;

import dev.corobridge.bridge.internal.OutcomeCell;
import java.util.Objects;
import java.util.concurrent.CancellationException;

/**
 * A completer: the {@link Awaitable} that Java code completes by hand, e.g. to wrap a callback API
 * so Kotlin can {@code await()} it.
 *
 * <pre>{@code
 * Promise<Row> p = new Promise<>();
 * client.query(sql, (row, err) -> { if (err != null) p.fail(err); else p.complete(row); });
 * return p;   // Java: p.join() on a virtual thread; Kotlin: p.await() suspends
 * }</pre>
 *
 * <p>Every way to finish — {@link #complete}, {@link #fail}, {@link #cancel()},
 * {@link #cancel(CancellationException)}, {@link #settle} — is one compare-and-set from "pending"
 * to its outcome: exactly one wins and returns {@code true}; the others return {@code false} and
 * change nothing. The outcome is published before any callback runs (result before resume); the
 * callbacks registered until then run on the thread that decided it, in registration order. A
 * cancellation that says why uses a subtype of {@link CancellationException}, e.g.
 * {@code p.cancel(new ContextShutdownException("pump ui terminated"))}; a time limit that passed
 * is a failure, {@code p.fail(new TaskTimeoutException(limit))}.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread and lock-free.
 *
 * @param <T> the value type
 */
public final class Promise<T> extends OutcomeCell<T> {

    /** A pending promise. */
    public Promise() {
    }

    /** Completes with {@code value}. Returns {@code true} if this call decided the outcome. */
    public boolean complete(T value) {
        return decide(new Outcome.Success<>(value));
    }

    /**
     * Fails with {@code error}; a {@link CancellationException} cancels instead. Returns {@code true}
     * if this call decided the outcome.
     */
    public boolean fail(Throwable error) {
        return decide(Outcome.ofError(error));
    }

    /** Settles with {@code outcome}; {@code true} if this call decided it. */
    public boolean settle(Outcome<T> outcome) {
        return decide(Objects.requireNonNull(outcome, "outcome"));
    }
}
