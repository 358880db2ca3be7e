package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>Already completed awaitables for the fast paths (an operation that did not have to wait).
 * Thread-safe.
 */
public final class Completions {

    private static final Awaitable<Void> DONE = new CompletedAwaitable<>(new Outcome.Success<>(null));

    private Completions() {
    }

    /** The shared awaitable completed with {@code null}: cancelling it is a no-op. */
    public static Awaitable<Void> done() {
        return DONE;
    }

    /** A completed awaitable with {@code value} ({@link CompletedAwaitable}: nothing to settle, nothing to cancel). */
    public static <T> Awaitable<T> value(T value) {
        return new CompletedAwaitable<>(new Outcome.Success<>(value));
    }

    /** A failed awaitable ({@link CompletedAwaitable}); a {@link java.util.concurrent.CancellationException} makes it cancelled. */
    public static <T> Awaitable<T> failed(Throwable error) {
        return new CompletedAwaitable<>(Outcome.ofError(error));
    }
}
