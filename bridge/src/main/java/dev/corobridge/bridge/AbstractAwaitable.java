package dev.corobridge.bridge;

import java.util.function.Consumer;

/**
 * A skeleton for awaitables whose outcome lives in a {@link Promise} they own (tasks, ring
 * operations): the read side of the protocol delegates to it, so every such type has the same
 * exactly-once and result-before-resume guarantees. Subclasses decide what {@link #cancel()} means.
 *
 * @param <T> the value type
 */
public abstract class AbstractAwaitable<T> implements Awaitable<T> {

    /** The promise holding the outcome. */
    protected abstract Promise<T> promise();

    @Override
    public final boolean isDone() {
        return promise().isDone();
    }

    @Override
    public final Outcome<T> outcomeOrNull() {
        return promise().outcomeOrNull();
    }

    @Override
    public final Registration onComplete(Consumer<? super Outcome<T>> callback) {
        return promise().onComplete(callback);
    }
}
