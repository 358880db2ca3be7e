package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.ContextShutdownException;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>A step of a {@code Task} (its start's body, a {@code thenOn} stage ...) handed to an executor
 * as a {@link Runnable}. An executor that accepted it and then drops it unrun, as a pump's
 * {@code shutdownNow()} drops what is queued, calls {@link #dropped} instead, so that the task is
 * cancelled as it would have been had the executor rejected it, and nobody waiting for it waits
 * forever.
 *
 * <p>Thread-safety: {@link #run} and {@link #dropped} may be called from any thread, each at most
 * once and not both; a task decided before (cancelled by its caller) ignores either.
 */
public interface TaskStep extends Runnable {

    /** The executor will never run this step: cancels its task with {@code cause}. */
    void dropped(ContextShutdownException cause);
}
