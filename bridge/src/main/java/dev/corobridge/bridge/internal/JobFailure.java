package dev.corobridge.bridge.internal;

import kotlinx.coroutines.Job;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>Fails a coroutine with an exception from outside its code, as if the code had thrown it: the
 * way a context element reports that the thread context of a resume could not be restored. kotlinx
 * has no public call for it ({@code Job.cancel(Throwable)} is hidden since 1.2); its coroutines
 * (every {@code launch}, {@code async}, {@code withContext} block, {@code runBlocking}) are
 * {@code JobSupport}s, whose {@code cancelCoroutine(cause)} is what a failing child uses: the job
 * becomes cancelling with {@code cause} as its root cause, a resume in cancellable mode (the usual
 * one: a start, {@code delay}, {@code await}, the end of a {@code withContext}) then delivers the
 * cancellation instead of running on, and the coroutine completes with {@code cause}, which
 * structured concurrency hands to the parent (a scoped coroutine, such as {@code withContext},
 * rethrows it to its caller instead).
 *
 * <p>Stateless; safe from any thread.
 */
public final class JobFailure {

    private JobFailure() {
    }

    /**
     * Fails {@code job} with {@code cause}; {@code false} when it cannot take a failure (no job,
     * {@code NonCancellable}, a job of another kind, or one already complete).
     */
    @SuppressWarnings("deprecation") // JobSupport: kotlinx's base of every coroutine, marked internal
    public static boolean fail(Job job, Throwable cause) {
        return job instanceof kotlinx.coroutines.JobSupport coroutine && coroutine.cancelCoroutine(cause);
    }
}
