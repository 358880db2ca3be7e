package dev.corobridge.bridge.internal;

import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>An executor whose steps are labelled in hop traces ({@code HopNote.on(executor, note)}): it runs
 * everything on {@code delegate}, and a task step on it is recorded under the delegate's context
 * name with {@code note} as the hop's note. Immutable; as thread-safe as the delegate.
 */
public record NotedExecutor(Executor delegate, String note) implements Executor {

    public NotedExecutor {
        Objects.requireNonNull(delegate, "executor");
        Objects.requireNonNull(note, "note");
    }

    @Override
    public void execute(Runnable command) {
        delegate.execute(command);
    }

    @Override
    public String toString() {
        return delegate + " (" + note + ")";
    }
}
