package dev.corobridge.sync;

import dev.corobridge.bridge.internal.Completions;
import dev.corobridge.bridge.Awaitable;
import kotlinx.coroutines.sync.Semaphore;
import kotlinx.coroutines.sync.SemaphoreKt;

/**
 * A counting semaphore whose waiters <em>wait without blocking a thread</em>: kotlinx's
 * {@link Semaphore}, with a Java face. Use it to bound concurrency (at most N requests in flight)
 * from Java tasks and coroutines alike, including on the pump.
 *
 * <pre>{@code
 * // Java, on a virtual thread                  // Kotlin
 * permits.acquireAsync().join();               permits.withPermit { fetch(url) }
 * try { fetch(url); } finally { permits.release(); }
 * }</pre>
 *
 * <ul>
 *   <li><b>FIFO.</b> {@link #release()} hands the permit directly to the longest waiter.</li>
 *   <li><b>Errors.</b> Fewer than one permit, or more acquired than permits, at construction
 *       throws {@link IllegalArgumentException}; releasing more permits than were acquired throws
 *       {@link IllegalStateException}.</li>
 *   <li><b>Cancellation.</b> Cancelling a pending {@link #acquireAsync()} (its awaitable, or the Kotlin
 *       coroutine) decides at once; a permit granted in that same instant is released again, to
 *       the next waiter. A cancelled waiter never holds a permit and no permit is lost.</li>
 *   <li><b>Threads.</b> A Java awaitable completes on the releasing thread; a Kotlin coroutine
 *       resumes on its own dispatcher. A callback may release at once: the grants that follow run
 *       in bounded stack (see {@code Awaitable}).</li>
 * </ul>
 *
 * <h2>Implementation overview</h2>
 * Delegates to one kotlinx {@code Semaphore} (lock-free, a counter plus a FIFO queue of waiters).
 * {@link #acquireAsync()} first tries {@code tryAcquire} and returns an already completed awaitable;
 * otherwise it calls kotlinx's suspending {@code acquire} with a continuation that completes the
 * returned awaitable (no coroutine is started; see {@code KotlinxCall}).
 *
 * <p><b>Memory effects.</b> Actions before {@code release()} happen-before actions after the
 * {@code acquire()} that obtains that permit.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread.
 */
public final class AsyncSemaphore {

    final Semaphore delegate;
    private final int permits;

    /** A semaphore with {@code permits} permits, all available. */
    public AsyncSemaphore(int permits) {
        this(permits, 0);
    }

    /**
     * A semaphore with {@code permits} permits of which {@code acquired} are taken.
     *
     * @throws IllegalArgumentException if {@code permits < 1} or {@code acquired} is not in
     *                                  {@code [0, permits]}
     */
    public AsyncSemaphore(int permits, int acquired) {
        if (permits < 1) {
            throw new IllegalArgumentException("AsyncSemaphore needs at least 1 permit, got " + permits);
        }
        if (acquired < 0 || acquired > permits) {
            throw new IllegalArgumentException("acquired permits must be in [0, " + permits + "], got " + acquired);
        }
        this.permits = permits;
        this.delegate = SemaphoreKt.Semaphore(permits, acquired);
    }

    /**
     * Takes a permit, waiting without blocking while there is none. The awaitable completes once
     * the permit is held; cancelling it withdraws the wait (see the class comment).
     * Kotlin suspends with {@code acquire()} instead; this handle is for Java (a Kotlin caller that holds it
     * must cancel it itself if its coroutine is cancelled, or it may take a permit for nobody).
     */
    public Awaitable<Void> acquireAsync() {
        if (delegate.tryAcquire()) {
            return Completions.done();
        }
        return new AcquireCall(delegate).start();
    }

    /** Takes a permit if one is available now. */
    public boolean tryAcquire() {
        return delegate.tryAcquire();
    }

    /**
     * Returns a permit, handing it to the longest waiter if there is one.
     *
     * @throws IllegalStateException if that would make more permits available than the semaphore has
     */
    public void release() {
        try {
            delegate.release();
        } catch (IllegalStateException e) {
            throw new IllegalStateException("AsyncSemaphore.release() without a matching acquire: " + e.getMessage(), e);
        }
    }

    /** Permits available now (never negative). */
    public int getAvailablePermits() {
        return delegate.getAvailablePermits();
    }

    /** The number of permits the semaphore was created with. */
    public int getPermits() {
        return permits;
    }

    @Override
    public String toString() {
        return "AsyncSemaphore[" + getAvailablePermits() + "/" + permits + " available]";
    }
}
