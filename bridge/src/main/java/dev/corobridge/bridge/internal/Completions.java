package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Promise;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>Already completed awaitables for the fast paths (an operation that did not have to wait).
 * Thread-safe.
 */
public final class Completions {

    private static final Promise<Void> DONE = new Promise<>();

    static {
        DONE.complete(null);
    }

    private Completions() {
    }

    /** The shared awaitable completed with {@code null}: cancelling it is a no-op. */
    public static Awaitable<Void> done() {
        return DONE;
    }

    public static <T> Awaitable<T> value(T value) {
        Promise<T> p = new Promise<>();
        p.complete(value);
        return p;
    }

    public static <T> Awaitable<T> failed(Throwable error) {
        Promise<T> p = new Promise<>();
        p.fail(error);
        return p;
    }
}
