package dev.corobridge.bridge;

import dev.corobridge.bridge.internal.OutcomeFields;
import java.lang.invoke.MethodHandles;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

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
 * <p><b>Implementation.</b> The outcome and the pending callbacks live in two fields of the
 * promise itself, run by the lock-free algorithm described in
 * {@code dev.corobridge.bridge.internal.OutcomeFields}: a promise is one object.
 *
 * @param <T> the value type
 */
public final class Promise<T> implements Awaitable<T> {

    private static final OutcomeFields OUTCOME = OutcomeFields.in(MethodHandles.lookup());

    /** The state word of {@link OutcomeFields}: null or a stack of callbacks (pending), or the {@link Outcome}. */
    @SuppressWarnings("unused")
    private volatile Object state;

    /** {@link OutcomeFields}' count of withdrawn callbacks in the pending stack. */
    @SuppressWarnings("unused")
    private volatile int withdrawn;

    /** A pending promise. */
    public Promise() {
    }

    /** Cancels with a plain {@link CancellationException}; {@code true} if this call decided the outcome. */
    @Override
    public boolean cancel() {
        return cancel(new CancellationException("cancelled"));
    }

    /** Cancels with {@code cause}; {@code true} if this call decided the outcome. */
    public boolean cancel(CancellationException cause) {
        return decide(new Outcome.Cancelled<>(Objects.requireNonNull(cause, "cause")));
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

    @Override
    public final boolean isDone() {
        return OUTCOME.isDone(this);
    }

    @Override
    public final Outcome<T> outcomeOrNull() {
        return OUTCOME.outcomeOrNull(this);
    }

    @Override
    public final Registration onComplete(Consumer<? super Outcome<T>> callback) {
        return OUTCOME.onComplete(this, callback);
    }

    @Override
    public String toString() {
        return "Promise@" + Integer.toHexString(System.identityHashCode(this)) + OUTCOME.describe(this);
    }

    private boolean decide(Outcome<T> outcome) {
        Object callbacks = OUTCOME.decide(this, outcome);
        if (callbacks == OutcomeFields.LOST) {
            return false;
        }
        OUTCOME.runCallbacks(callbacks, outcome);
        return true;
    }
}
