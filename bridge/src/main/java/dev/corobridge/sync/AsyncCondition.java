package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.BooleanSupplier;

/**
 * A condition variable bound to an {@link AsyncMutex}: holding the mutex, a caller waits for a
 * signal — releasing the mutex while it waits and holding it again when the wait ends — without
 * blocking a thread. kotlinx has no such primitive; this is ours.
 *
 * <pre>{@code
 * // Kotlin                                     // Java, on a virtual thread
 * mutex.withLock {                              mutex.lockAsync().join();
 *     notEmpty.awaitUntil { queue.isNotEmpty() }   try {
 *     queue.removeFirst()                           notEmpty.awaitUntilAsync(() -> !queue.isEmpty()).join();
 * }                                                 return queue.removeFirst();
 *                                               } finally { mutex.unlock(); }
 * // producer: mutex.withLock { queue.add(x) }; notEmpty.signal()
 * }</pre>
 *
 * <ul>
 *   <li><b>Holding the mutex.</b> {@link #awaitAsync()} and {@link #awaitUntilAsync} must be called
 *       holding the mutex (else {@link IllegalStateException}); <em>however the wait ends</em> —
 *       signalled, cancelled, or the predicate threw — its awaitable completes only once the
 *       mutex is held again, so a {@code finally { unlock(); }} is always right. With an owner
 *       token, it is held again <em>as that token</em>: if another party that shares the token
 *       holds the mutex when the wait must take it back, the wait queues behind it rather than
 *       fail, so {@code finally { unlock(owner); }} releases the wait's own hold, never the other's.
 *       {@link #signal()} and {@link #signalAll()} may be called with or without the mutex.</li>
 *   <li><b>No lost wake-up.</b> A wait is queued before the mutex is released, so a signal from
 *       whoever takes the mutex next always finds it.</li>
 *   <li><b>Spurious-wake safety.</b> A signal means "look again", not "your condition holds":
 *       {@link #awaitUntilAsync} (Kotlin: {@code awaitUntil}) re-checks its predicate, holding the
 *       mutex, after every wake-up.</li>
 *   <li><b>Fairness.</b> {@link #signal()} wakes the longest-waiting wait; the woken wait then
 *       queues for the mutex behind whoever is already waiting for it (FIFO).</li>
 *   <li><b>Cancellation never steals a signal.</b> Cancelling a wait (its awaitable, or the Kotlin
 *       coroutine) withdraws it unless a signal chose it first: then {@code cancel()} returns
 *       {@code true} and the wait ends cancelled. If a signal chose it first, {@code cancel()}
 *       returns {@code false} and the wait goes on with its signal — the signal is not lost on a
 *       waiter that will ignore it: {@link #awaitAsync()} completes normally; {@link #awaitUntilAsync}
 *       evaluates its predicate once more and completes normally if it holds (or with its
 *       exception), and only if it is still false ends cancelled there instead of waiting again.
 *       A withdrawn wait is never chosen by a signal. Either way the outcome is published once the
 *       mutex is held again; a Kotlin coroutine cancelled after being signalled returns normally
 *       from {@code await} and sees the cancellation at its next suspension point
 *       ({@code awaitUntil}: its next wait, if the predicate is still false).</li>
 *   <li><b>Threads.</b> A Java awaitable completes on the thread that handed the mutex back
 *       ({@code unlock()}), the predicate of {@link #awaitUntilAsync} is evaluated there (holding the
 *       mutex); a Kotlin coroutine resumes on its own dispatcher.</li>
 * </ul>
 *
 * <h2>Implementation overview</h2>
 * A lock-free FIFO queue of waits ({@link ConcurrentLinkedQueue}). Each wait has a state word
 * moved once by compare-and-set from "waiting" to "signalled" (by a signal) or "withdrawn" (by a
 * cancel) — whichever CAS wins decides, so a signal and a cancellation can never both take the
 * same wait, and a wait is woken at most once. {@link #signal()} polls waits from the head until
 * one accepts the signal (skipping withdrawn ones) and reports whether one did;
 * {@link #signalAll()} drains the queue. A woken or withdrawn wait then re-acquires the mutex
 * through {@link AsyncMutex}'s own FIFO queue before completing (not cancellably; if its owner
 * token holds the mutex at that moment — kotlinx would refuse that as reentrant — it first queues
 * without a token behind that holder, then locks as its token). An {@link #awaitUntilAsync} wait is a
 * loop of such waits: its cancel records a request and withdraws the wait in progress if it can;
 * a request that could not withdraw it is honoured the next time the loop would wait.
 *
 * <p><b>Memory effects.</b> As for the mutex: actions of a holder before it releases the mutex
 * happen-before the actions of a woken wait after it holds the mutex again.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread.
 */
public final class AsyncCondition {

    private final AsyncMutex mutex;
    private final ConcurrentLinkedQueue<ConditionWait> waits = new ConcurrentLinkedQueue<>();

    /** A condition of {@code mutex}. */
    public AsyncCondition(AsyncMutex mutex) {
        this.mutex = Objects.requireNonNull(mutex, "mutex");
    }

    /** The mutex this condition is bound to. */
    public AsyncMutex getMutex() {
        return mutex;
    }

    /**
     * Releases the mutex (held without an owner token), waits for a signal, and completes once the
     * mutex is held again. Cancelling the awaitable withdraws the wait unless a signal chose it
     * already (see the class comment). Check your condition again after it completes — or use
     * {@link #awaitUntilAsync}.
     *
     * @throws IllegalStateException if the mutex is not locked
     */
    public Awaitable<Void> awaitAsync() {
        return enqueueAndUnlock(null);
    }

    /**
     * {@link #awaitAsync()} for a mutex held by {@code owner}.
     *
     * @throws IllegalStateException if {@code owner} does not hold the mutex
     */
    public Awaitable<Void> awaitAsync(Object owner) {
        return enqueueAndUnlock(Objects.requireNonNull(owner, "owner"));
    }

    /**
     * Waits, holding the mutex (held without an owner token), until {@code predicate} is true: it
     * is evaluated now and after every signal, always holding the mutex. Completes holding the
     * mutex — with success once the predicate is true, with the predicate's exception if it throws,
     * cancelled if cancelled. Cancelling it while it waits withdraws it ({@code cancel()} returns
     * {@code true}); once a signal chose it, {@code cancel()} returns {@code false}, the predicate
     * is evaluated with that signal, and the wait ends cancelled only if it is still false.
     *
     * @throws IllegalStateException if the mutex is not locked
     */
    public Awaitable<Void> awaitUntilAsync(BooleanSupplier predicate) {
        return predicateWait(null, predicate);
    }

    /** {@link #awaitUntilAsync(BooleanSupplier)} for a mutex held by {@code owner}. */
    public Awaitable<Void> awaitUntilAsync(Object owner, BooleanSupplier predicate) {
        return predicateWait(Objects.requireNonNull(owner, "owner"), predicate);
    }

    /** Wakes the longest-waiting wait; {@code true} if there was one to wake. */
    public boolean signal() {
        ConditionWait w;
        while ((w = waits.poll()) != null) {
            if (w.trySignal()) {
                return true;
            }
        }
        return false;
    }

    /** Wakes every wait queued now; returns how many. */
    public int signalAll() {
        int woken = 0;
        ConditionWait w;
        while ((w = waits.poll()) != null) {
            if (w.trySignal()) {
                woken++;
            }
        }
        return woken;
    }

    /** Whether any wait is queued (a snapshot). */
    public boolean hasWaiters() {
        return !waits.isEmpty();
    }

    private Awaitable<Void> predicateWait(Object owner, BooleanSupplier predicate) {
        Objects.requireNonNull(predicate, "predicate");
        checkHeld(owner, "awaitUntilAsync");
        PredicateWait w = new PredicateWait(this, owner, predicate);
        w.step();
        return w;
    }

    /** Queues a wait, then releases the mutex (in that order: no signal can be missed). */
    ConditionWait enqueueAndUnlock(Object owner) {
        checkHeld(owner, "awaitAsync");
        ConditionWait w = new ConditionWait(this, owner);
        waits.add(w);
        try {
            mutex.unlockFor(owner);
        } catch (RuntimeException e) {
            waits.remove(w);
            throw e;
        }
        return w;
    }

    /** Drops a withdrawn wait from the queue (signals would skip it anyway). */
    void forget(ConditionWait w) {
        waits.remove(w);
    }

    private void checkHeld(Object owner, String operation) {
        boolean held = owner == null ? mutex.isLocked() : mutex.holdsLock(owner);
        if (!held) {
            throw new IllegalStateException("AsyncCondition." + operation + "() must be called holding its mutex"
                    + (owner == null ? "" : " as " + owner) + "; " + mutex);
        }
    }

    @Override
    public String toString() {
        return "AsyncCondition[" + (hasWaiters() ? "with waiters" : "no waiters") + ", " + mutex + "]";
    }
}
