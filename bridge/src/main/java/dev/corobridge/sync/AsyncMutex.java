package dev.corobridge.sync;

import dev.corobridge.bridge.internal.Completions;
import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import java.util.Objects;
import kotlinx.coroutines.sync.Mutex;
import kotlinx.coroutines.sync.MutexKt;

/**
 * A mutual-exclusion lock that makes waiters <em>wait without blocking a thread</em>: kotlinx's
 * {@link Mutex}, with a Java face. Safe to use from the pump, where a
 * {@link java.util.concurrent.locks.ReentrantLock} would freeze the loop.
 *
 * <pre>{@code
 * // Java, on a virtual thread                 // Kotlin
 * mutex.lockAsync().join();                   mutex.withLock { board.add(note) }
 * try { board.add(note); } finally { mutex.unlock(); }
 *
 * // Java, on the pump (never blocks it): continue when the lock is ours
 * Task.from(mutex.lockAsync()).thenOn(ui, x -> { try { return board.add(note); } finally { mutex.unlock(); } });
 * }</pre>
 *
 * <ul>
 *   <li><b>FIFO.</b> Waiters get the lock in the order their {@code lockAsync()} calls began to wait;
 *       {@link #unlock()} hands it directly to the longest waiter, so nobody barges in.</li>
 *   <li><b>Not reentrant.</b> A second {@code lockAsync()} by the holder waits for itself forever —
 *       unless it passes an owner token: then it fails at once with
 *       {@link IllegalStateException}.</li>
 *   <li><b>Owners.</b> {@link #lockAsync(Object)} records an owner token; {@link #unlock(Object)} by a
 *       different token, or of a mutex that is not locked, throws {@link IllegalStateException}
 *       naming both. Without a token anyone may unlock (as with kotlinx).</li>
 *   <li><b>Cancellation.</b> A pending {@code lockAsync()} is cancelled through its awaitable (or by
 *       cancelling the Kotlin coroutine). The decision is immediate; if the lock was handed over
 *       at the same instant it is passed on to the next waiter. A cancelled waiter never holds the
 *       lock and the lock is never lost.</li>
 *   <li><b>Threads.</b> A Java awaitable completes on the thread that unlocked (callbacks run
 *       there: keep them short or hop with {@code Task.from(...).thenOn(context, ...)}); a virtual
 *       thread in {@code join()} is unparked. A Kotlin coroutine resumes on its own dispatcher.
 *       A callback may unlock at once: the grants that follow run in bounded stack (see
 *       {@code Awaitable}).</li>
 * </ul>
 *
 * <h2>Implementation overview</h2>
 * Every operation delegates to one kotlinx {@code Mutex} (a FIFO semaphore of one permit, lock-free).
 * {@code lockAsync()} first tries {@code tryLock} and returns an already completed awaitable; otherwise
 * it calls kotlinx's suspending {@code lock} directly with a continuation that completes the
 * returned awaitable (no coroutine is started; see {@code KotlinxCall}). The Kotlin face
 * ({@code suspend fun AsyncMutex.lock}, {@code withLock}) calls kotlinx directly.
 *
 * <p><b>Memory effects.</b> As for kotlinx {@code Mutex}: actions before {@code unlock()}
 * happen-before actions after the {@code lock()} that acquires it.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread.
 */
public final class AsyncMutex {

    private static final Awaitable<Void> LOCKED = Completions.done();

    /** The kotlinx mutex this one is (the Kotlin face uses it directly). */
    final Mutex delegate;

    /** An unlocked mutex. */
    public AsyncMutex() {
        this(false);
    }

    /** A mutex, locked (without owner) if {@code locked}. */
    public AsyncMutex(boolean locked) {
        delegate = MutexKt.Mutex(locked);
    }

    /**
     * Locks the mutex, waiting without blocking while another holds it. The awaitable completes
     * once the lock is held; cancelling it withdraws the wait (see the class comment).
     * Kotlin suspends with {@code lock()} instead; this handle is for Java (a Kotlin caller that holds it
     * must cancel it itself if its coroutine is cancelled, or it may take the lock for nobody).
     */
    public Awaitable<Void> lockAsync() {
        return lockFor(null);
    }

    /**
     * {@link #lockAsync()} recording {@code owner}, so that {@link #unlock(Object)} by another token
     * and a reentrant {@code lockAsync(owner)} fail clearly. Kotlin: {@code lock(owner)}.
     *
     * @throws NullPointerException if {@code owner} is null (use {@link #lockAsync()})
     */
    public Awaitable<Void> lockAsync(Object owner) {
        return lockFor(Objects.requireNonNull(owner, "owner"));
    }

    /** {@code lockAsync()} with an optional owner ({@code null}: none). */
    Awaitable<Void> lockFor(Object owner) {
        try {
            if (delegate.tryLock(owner)) {
                return LOCKED;
            }
        } catch (IllegalStateException e) {
            return Completions.failed(new IllegalStateException("AsyncMutex is not reentrant: " + e.getMessage(), e));
        }
        return new LockCall(delegate, owner).start();
    }

    /**
     * Takes the mutex back for a condition wait that gave it up ({@code owner} may be {@code null}):
     * completes only once the mutex is held as {@code owner}, never fails for reentrancy, and is not
     * cancellable.
     *
     * <p>kotlinx refuses a lock for a token that holds the mutex at that instant (it takes it for
     * reentrancy). For a condition wait that is no reentrancy: another party that shares the
     * wait's token took the free mutex while the wait did not hold it. The wait then queues
     * without a token — FIFO, behind that holder — and, once it holds the mutex that way (no token
     * holds it then, so kotlinx accepts a lock for {@code owner}), queues as {@code owner} and
     * passes the anonymous hold on, to whoever queued meanwhile or else straight to itself. So it
     * never completes without the mutex, and a later {@code unlock(owner)} releases its own hold,
     * not the other's.
     */
    Awaitable<Void> relockFor(Object owner) {
        Awaitable<Void> direct = lockFor(owner);
        Outcome<Void> now = direct.outcomeOrNull();
        if (now != null && now.isSuccess()) {
            return direct;
        }
        Promise<Void> held = new Promise<>();
        relockInto(direct, owner, held);
        return held;
    }

    private void relockInto(Awaitable<Void> attempt, Object owner, Promise<Void> held) {
        attempt.onComplete(o -> {
            if (owner != null && o.errorOrNull() instanceof IllegalStateException) {
                // The token holds the mutex now (kotlinx's reentrancy check): wait behind it without one.
                lockFor(null).onComplete(anonymous -> {
                    if (!anonymous.isSuccess()) {
                        held.settle(anonymous); // cannot happen: a lock without a token that nobody cancels
                        return;
                    }
                    // Queue as the token while holding the mutex (no token holds it now, so kotlinx
                    // accepts), then hand the anonymous hold on: to whoever queued meanwhile, else to us.
                    Awaitable<Void> queued = lockFor(owner);
                    unlockFor(null);
                    relockInto(queued, owner, held);
                });
            } else {
                held.settle(o);
            }
        });
    }

    /** Locks the mutex if it is free; {@code false} if it is held (or has waiters). */
    public boolean tryLock() {
        return delegate.tryLock(null);
    }

    /**
     * {@link #tryLock()} recording {@code owner}.
     *
     * @throws IllegalStateException if {@code owner} already holds the lock (not reentrant)
     */
    public boolean tryLock(Object owner) {
        Objects.requireNonNull(owner, "owner");
        try {
            return delegate.tryLock(owner);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("AsyncMutex is not reentrant: " + e.getMessage(), e);
        }
    }

    /**
     * Unlocks the mutex, handing it to the longest waiter if there is one.
     *
     * @throws IllegalStateException if the mutex is not locked
     */
    public void unlock() {
        unlockFor(null);
    }

    /**
     * Unlocks the mutex held by {@code owner}.
     *
     * @throws IllegalStateException if the mutex is not locked, or is locked by another owner
     */
    public void unlock(Object owner) {
        unlockFor(Objects.requireNonNull(owner, "owner"));
    }

    /** {@code unlock()} with an optional owner ({@code null}: none). */
    void unlockFor(Object owner) {
        try {
            delegate.unlock(owner);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("AsyncMutex.unlock(" + (owner == null ? "" : owner) + ") refused — only the "
                    + "holder unlocks, once: " + e.getMessage(), e);
        }
    }

    /** Whether the mutex is locked. */
    public boolean isLocked() {
        return delegate.isLocked();
    }

    /** Whether the mutex is locked by {@code owner}. */
    public boolean holdsLock(Object owner) {
        return delegate.holdsLock(Objects.requireNonNull(owner, "owner"));
    }

    @Override
    public String toString() {
        return "AsyncMutex[" + (isLocked() ? "locked" : "unlocked") + "]";
    }
}
