package dev.corobridge.bridge.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>The termination of an execution context (a pump, a ring pool) and the futures of it handed to
 * callers. Each caller gets a future of its own ({@link #handOut()}), so that completing it cannot
 * complete anyone else's.
 *
 * <p><b>Algorithm.</b> The termination completes every future handed out directly, and only then
 * counts as settled: a caller that sees it settled ({@link #await}, {@link #isSettled()}) finds
 * every future it was handed complete. Futures handed out while it settles are copies of the
 * outcome, which nobody else waits on, so they complete on the settling thread before it counts as
 * settled, or at once if the outcome is complete. (A {@code copy()} of one shared future is
 * completed by a dependent action, which can still be running when a woken waiter of the original
 * returns: the reason for this class.)
 *
 * <p><b>Memory effects.</b> Everything the settling thread did before {@link #complete} or
 * {@link #fail} <i>happens-before</i> {@link #await} returns {@code true} or {@link #isSettled()}
 * returns {@code true}, and before any future handed out completes.
 *
 * <p><b>Thread-safety.</b> Safe from any thread. It settles once: the first {@link #complete} or
 * {@link #fail} decides; later calls do nothing.
 *
 * @param <T> the termination's value (a report, or {@code Void})
 */
public final class TerminationFuture<T> {

    private final CompletableFuture<T> outcome = new CompletableFuture<>();
    private final CountDownLatch settled = new CountDownLatch(1);
    /** The futures handed out before settling began; guarded by this. */
    private final List<CompletableFuture<T>> handedOut = new ArrayList<>();
    /** Settling has begun: later callers get a copy of the outcome. Guarded by this. */
    private boolean settling;

    /** A future of the termination for one caller, completed when it settles (complete now if it has). */
    public synchronized CompletableFuture<T> handOut() {
        if (settling) {
            return outcome.copy();
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        handedOut.add(f);
        return f;
    }

    /** Settles with {@code value}; nothing if already settled (or settling). */
    public void complete(T value) {
        settle(value, null);
    }

    /** Settles with {@code failure}; nothing if already settled (or settling). */
    public void fail(Throwable failure) {
        settle(null, failure);
    }

    private void settle(T value, Throwable failure) {
        List<CompletableFuture<T>> futures;
        synchronized (this) {
            if (settling) {
                return;
            }
            settling = true;
            futures = new ArrayList<>(handedOut);
            handedOut.clear();
        }
        futures.add(0, outcome); // first: the copies handed out from now on complete with it, here
        for (CompletableFuture<T> f : futures) {
            if (failure == null) {
                f.complete(value);
            } else {
                f.completeExceptionally(failure);
            }
        }
        settled.countDown();
    }

    /** Whether it has settled: every future handed out is complete. */
    public boolean isSettled() {
        return settled.getCount() == 0;
    }

    /** Whether it settled with a failure ({@code false} before it settled). */
    public boolean isFailed() {
        return isSettled() && outcome.isCompletedExceptionally();
    }

    /**
     * Waits until it settles, at most {@code nanos} ({@link Long#MAX_VALUE}: without limit; zero or
     * less: not at all); {@code true} if it has settled.
     */
    public boolean await(long nanos) throws InterruptedException {
        if (nanos == Long.MAX_VALUE) {
            settled.await();
            return true;
        }
        return settled.await(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }
}
