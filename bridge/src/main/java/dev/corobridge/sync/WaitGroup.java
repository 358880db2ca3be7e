package dev.corobridge.sync;

import dev.corobridge.bridge.internal.Completions;
import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Promise;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A counter of outstanding work (Go's {@code sync.WaitGroup}): {@link #add(int)} before starting
 * work, {@link #done()} when each piece finishes, and waiters resume when the counter is back at
 * zero — without blocking a thread.
 *
 * <pre>{@code
 * WaitGroup pending = new WaitGroup();
 * for (Url u : urls) {
 *     pending.add(1);
 *     Task.startVirtual(() -> { try { return fetch(u); } finally { pending.done(); } });
 * }
 * pending.awaitAsync().join();          // Kotlin: pending.await()
 * }</pre>
 *
 * <ul>
 *   <li><b>Reusable.</b> Unlike {@link AsyncLatch} the counter may rise again after reaching zero;
 *       each time it leaves zero a new <em>round</em> starts. A waiter waits for the round that was
 *       current when it started waiting; if the counter is zero it returns at once.</li>
 *   <li><b>Errors.</b> {@link #done()} (or a negative {@code add}) that would take the counter
 *       below zero throws {@link IllegalStateException} and changes nothing; an {@code add} that
 *       overflows throws {@link ArithmeticException}.</li>
 *   <li><b>Cancellation of a waiter.</b> Each {@link #awaitAsync()} is a waiter of its own;
 *       cancelling it (or the Kotlin coroutine) withdraws that waiter only. Reaching zero is a
 *       broadcast, so a cancelled waiter never takes a wake-up from another.</li>
 *   <li><b>Threads.</b> A Java awaitable completes on the thread of the {@code done()} that
 *       reached zero; a Kotlin coroutine resumes on its own dispatcher.</li>
 * </ul>
 *
 * <h2>Implementation overview</h2>
 * One {@link AtomicReference} holds an immutable {@code Round}: the counter and the
 * {@link Promise} its waiters wait on. Every {@code add}/{@code done} is a compare-and-set from one
 * round to the next, so the counter and the promise always change together: leaving zero installs
 * a fresh promise, staying above zero keeps the promise, and the one update that reaches zero
 * completes the promise after its CAS succeeded (waking exactly that round's waiters; the
 * promise's own CAS makes each wake-up happen once). A waiter reads the round once: at zero it
 * returns at once, otherwise it registers on that round's promise, which can only complete — there
 * is no lost wake-up between the read and the registration.
 *
 * <p><b>Memory effects.</b> Actions before a {@code done()} happen-before actions after a wait
 * that returns because the counter reached zero.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread and lock-free.
 */
public final class WaitGroup {

    /** The counter and the promise its waiters wait on (completed whenever count is 0). */
    record Round(long count, Promise<Void> zero) {
    }

    private static final Round IDLE;

    static {
        Promise<Void> p = new Promise<>();
        p.complete(null);
        IDLE = new Round(0, p);
    }

    /** The current round (the Kotlin face reads it directly). */
    final AtomicReference<Round> round = new AtomicReference<>(IDLE);

    /**
     * Adds {@code delta} (which may be negative) to the counter; reaching zero wakes the waiters.
     *
     * @throws IllegalStateException if the counter would go below zero
     * @throws ArithmeticException   if it would overflow
     */
    public void add(int delta) {
        if (delta == 0) {
            return;
        }
        while (true) {
            Round r = round.get();
            long n = Math.addExact(r.count(), delta);
            if (n < 0) {
                throw new IllegalStateException("WaitGroup counter would go below zero (" + r.count() + " + " + delta
                        + "): done() was called more often than add()");
            }
            Round next = n == 0 ? new Round(0, r.zero()) : r.count() == 0 ? new Round(n, new Promise<>()) : new Round(n, r.zero());
            if (round.compareAndSet(r, next)) {
                if (n == 0) {
                    r.zero().complete(null);
                }
                return;
            }
        }
    }

    /**
     * One piece of work finished: {@code add(-1)}.
     *
     * @throws IllegalStateException if the counter is already zero
     */
    public void done() {
        add(-1);
    }

    /** The counter. */
    public long getCount() {
        return round.get().count();
    }

    /**
     * A new waiter: completes when the counter reaches zero (at once if it is zero). Cancelling it
     * withdraws this waiter only.
     */
    public Awaitable<Void> awaitAsync() {
        Round r = round.get();
        return r.count() == 0 ? Completions.done() : Waiter.of(r.zero());
    }

    @Override
    public String toString() {
        return "WaitGroup[count=" + getCount() + "]";
    }
}
