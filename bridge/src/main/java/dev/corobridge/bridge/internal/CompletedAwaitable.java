package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>An {@link Awaitable} whose outcome was decided before anyone could see it: what an operation
 * returns when it did not have to wait (a receive that found an element, a lock that was free).
 * It behaves as a {@link dev.corobridge.bridge.Promise} that is already settled — {@link #cancel()}
 * returns {@code false}, {@link #onComplete} runs the callback at once on the calling thread and
 * reports a callback's exception to the uncaught-failure handler, {@code join()} returns at once —
 * but it is one object with one final field: no compare-and-set to settle it, no callback stack.
 *
 * <p><b>Thread-safety and memory effects.</b> Immutable; safely published by its final field, so
 * any thread that obtains a reference sees the outcome (and what the outcome's value references as
 * it was when the awaitable was made).
 *
 * @param <T> the value type
 */
public final class CompletedAwaitable<T> implements Awaitable<T> {

    private final Outcome<T> outcome;

    /** @param outcome the decided outcome (never {@code null}) */
    public CompletedAwaitable(Outcome<T> outcome) {
        this.outcome = Objects.requireNonNull(outcome, "outcome");
    }

    @Override
    public boolean isDone() {
        return true;
    }

    @Override
    public Outcome<T> outcomeOrNull() {
        return outcome;
    }

    @Override
    public Registration onComplete(Consumer<? super Outcome<T>> callback) {
        OutcomeFields.invoke(Objects.requireNonNull(callback, "callback"), outcome); // as a settled Promise runs it
        return Registration.NONE;
    }

    /** Always {@code false}: the outcome was decided before this awaitable existed. */
    @Override
    public boolean cancel() {
        return false;
    }

    @Override
    public String toString() {
        return "Completed[" + outcome + "]";
    }
}
