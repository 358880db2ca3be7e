package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Promise;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A count-down latch whose waiters <em>wait without blocking a thread</em>: it opens when
 * {@link #countDown()} has been called {@code count} times, and stays open.
 *
 * <pre>{@code
 * AsyncLatch ready = new AsyncLatch(3);
 * // each of three workers, when done:  ready.countDown();
 * // Java, on a virtual thread:         // Kotlin:
 * ready.awaitAsync().join();               ready.await()
 * }</pre>
 *
 * <ul>
 *   <li><b>One-shot</b>, like {@link java.util.concurrent.CountDownLatch}: once open it stays open
 *       and further {@code countDown()} calls do nothing. (For a counter that goes up and down
 *       again, use {@link WaitGroup}.)</li>
 *   <li><b>Errors.</b> A negative initial count throws {@link IllegalArgumentException}.</li>
 *   <li><b>Cancellation of a waiter.</b> Each {@link #awaitAsync()} is a waiter of its own;
 *       cancelling it (or the Kotlin coroutine) withdraws that waiter only. Opening is a broadcast,
 *       so a cancelled waiter never takes a wake-up from another.</li>
 *   <li><b>Threads.</b> A Java awaitable completes on the thread of the last {@code countDown()};
 *       a Kotlin coroutine resumes on its own dispatcher.</li>
 * </ul>
 *
 * <h2>Implementation overview</h2>
 * An {@link AtomicLong} counts down by compare-and-set and never below zero; the one call that
 * moves it from 1 to 0 completes a {@link Promise}, which wakes every registered waiter (see
 * {@link AsyncEvent} for why none is lost: registration and completion are CASes on the same
 * word). Waiting when the count is already zero completes at once.
 *
 * <p><b>Memory effects.</b> Actions before a {@code countDown()} happen-before actions after a
 * wait that returns.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread and lock-free.
 */
public final class AsyncLatch {

    private final AtomicLong count;
    /** Completed when the count reaches zero (the Kotlin face awaits it directly). */
    final Promise<Void> open = new Promise<>();

    /**
     * A latch that opens after {@code count} calls of {@link #countDown()} (at once for 0).
     *
     * @throws IllegalArgumentException if {@code count} is negative
     */
    public AsyncLatch(long count) {
        if (count < 0) {
            throw new IllegalArgumentException("AsyncLatch count must not be negative, got " + count);
        }
        this.count = new AtomicLong(count);
        if (count == 0) {
            open.complete(null);
        }
    }

    /** Counts down; the call that reaches zero opens the latch. Does nothing once open. */
    public void countDown() {
        while (true) {
            long c = count.get();
            if (c == 0) {
                return;
            }
            if (count.compareAndSet(c, c - 1)) {
                if (c == 1) {
                    open.complete(null);
                }
                return;
            }
        }
    }

    /** The remaining count. */
    public long getCount() {
        return count.get();
    }

    /** Whether the latch is open (the count reached zero). */
    public boolean isOpen() {
        return count.get() == 0;
    }

    /**
     * A new waiter: completes once the latch is open (at once if it is). Cancelling it withdraws
     * this waiter only.
     */
    public Awaitable<Void> awaitAsync() {
        return Waiter.of(open);
    }

    @Override
    public String toString() {
        return "AsyncLatch[count=" + getCount() + "]";
    }
}
