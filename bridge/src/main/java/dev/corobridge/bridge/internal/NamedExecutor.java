package dev.corobridge.bridge.internal;

import java.util.concurrent.Executor;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>An executor with a display name for hop traces ({@link ContextNames}): it runs everything on
 * {@code delegate}. Immutable; as thread-safe as the delegate.
 */
public record NamedExecutor(String name, Executor delegate) implements Executor {
    @Override
    public void execute(Runnable command) {
        delegate.execute(command);
    }
}
