package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.ExecutionContext;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>Implemented by a {@code CoroutineDispatcher} that is the Kotlin face of an
 * {@link ExecutionContext} (a pump's dispatcher, a ring's). Java APIs that take a dispatcher use
 * the context's own {@link java.util.concurrent.Executor} face through it, so work refused after
 * shutdown is reported as a {@link dev.corobridge.bridge.ContextShutdownException} instead of
 * running elsewhere, and hop traces show the context's name.
 */
public interface BoundDispatcher {

    /** The context this dispatcher runs on. */
    ExecutionContext context();
}
