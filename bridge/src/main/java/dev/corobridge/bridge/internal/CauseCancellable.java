package dev.corobridge.bridge.internal;

import java.util.concurrent.CancellationException;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>An awaitable that can be cancelled with a given cause (corobridge's own: {@link OutcomeCell}
 * and the awaitables that hold its fields themselves), so that a timeout or a cancelled task
 * passes its cause on ({@link OutcomeCell#cancel(dev.corobridge.bridge.Awaitable, CancellationException)}).
 */
public interface CauseCancellable {

    /** Cancels with {@code cause}; {@code true} if this call decided the outcome. */
    boolean cancel(CancellationException cause);
}
