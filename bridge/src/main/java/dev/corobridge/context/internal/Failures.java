package dev.corobridge.context.internal;

import java.lang.reflect.UndeclaredThrowableException;

/**
 * How the context code keeps going when one thread-local's accessor throws: it remembers the first
 * failure, attaches the later ones to it as suppressed, and rethrows it once everything was put
 * back. Stateless; not public API.
 */
public final class Failures {

    private Failures() {
    }

    /** {@code first}, or {@code next} when there was none yet; a later failure is suppressed by the first. */
    public static Throwable first(Throwable first, Throwable next) {
        if (first == null) {
            return next;
        }
        if (next != first) {
            first.addSuppressed(next);
        }
        return first;
    }

    /** {@code failure} to throw as it is: an {@code Error} is thrown here, a checked one wrapped. */
    public static RuntimeException unchecked(Throwable failure) {
        if (failure instanceof RuntimeException e) {
            return e;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        return new UndeclaredThrowableException(failure);
    }
}
