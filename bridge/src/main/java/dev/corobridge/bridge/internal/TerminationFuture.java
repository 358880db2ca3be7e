package dev.corobridge.bridge.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>The termination of an execution context (a pump, a ring pool): one future, handed to every
 * caller as it is, that only its owner completes ({@link #settle}, {@link #fail}). Completing,
 * cancelling or timing it out from outside does nothing to it: {@code complete},
 * {@code completeExceptionally} and {@code cancel} return {@code false}, {@code obtrude…} and
 * {@code completeAsync} throw {@link UnsupportedOperationException}, and {@code orTimeout} and
 * {@code completeOnTimeout} apply to a copy, which they return.
 *
 * <p><b>Why one future.</b> Copies of one future, handed out so that no caller could complete the
 * others', complete through dependent actions, which can still be running when a woken waiter of
 * the original returns: a caller that had seen the context terminated could find its own future not
 * yet complete. With one future, seeing it complete anywhere means it is complete everywhere.
 *
 * <p><b>Memory effects and thread-safety</b> are {@link CompletableFuture}'s: everything the owner
 * did before {@link #settle} or {@link #fail} <i>happens-before</i> a caller sees the future
 * complete. Safe from any thread; the first settle or fail decides.
 *
 * @param <T> the termination's value (a report, or {@code Void})
 */
public final class TerminationFuture<T> extends CompletableFuture<T> {

    /** Completes the termination with {@code value}; {@code false} if it had completed. */
    public boolean settle(T value) {
        return super.complete(value);
    }

    /** Completes the termination with {@code failure}; {@code false} if it had completed. */
    public boolean fail(Throwable failure) {
        return super.completeExceptionally(failure);
    }

    /** Does nothing: only the owner completes the termination. */
    @Override
    public boolean complete(T value) {
        return false;
    }

    /** Does nothing: only the owner completes the termination. */
    @Override
    public boolean completeExceptionally(Throwable ex) {
        return false;
    }

    /** Does nothing: a termination cannot be cancelled. */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return false;
    }

    @Override
    public void obtrudeValue(T value) {
        throw new UnsupportedOperationException("only its owner completes a termination");
    }

    @Override
    public void obtrudeException(Throwable ex) {
        throw new UnsupportedOperationException("only its owner completes a termination");
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier, Executor executor) {
        throw new UnsupportedOperationException("only its owner completes a termination");
    }

    @Override
    public CompletableFuture<T> completeAsync(Supplier<? extends T> supplier) {
        throw new UnsupportedOperationException("only its owner completes a termination");
    }

    /** A copy of the termination that fails with a {@code TimeoutException} after the timeout. */
    @Override
    public CompletableFuture<T> orTimeout(long timeout, TimeUnit unit) {
        return copy().orTimeout(timeout, unit);
    }

    /** A copy of the termination that completes with {@code value} after the timeout. */
    @Override
    public CompletableFuture<T> completeOnTimeout(T value, long timeout, TimeUnit unit) {
        return copy().completeOnTimeout(value, timeout, unit);
    }

    /** Dependent stages are plain futures, which their callers may complete. */
    @Override
    public <U> CompletableFuture<U> newIncompleteFuture() {
        return new CompletableFuture<>();
    }
}
