package dev.corobridge.sync;

import dev.corobridge.bridge.internal.Completions;
import dev.corobridge.bridge.Awaitable;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A read-write lock whose waiters <em>wait without blocking a thread</em>: many readers at once, or
 * one writer. Safe to use from the pump, where a
 * {@link java.util.concurrent.locks.ReentrantReadWriteLock} would freeze the loop. kotlinx has no
 * such primitive; this is ours, shared by Java and Kotlin.
 *
 * <pre>{@code
 * // Java, on a virtual thread                          // Kotlin
 * try (var r = rw.readLockAsync().join()) {            val v = rw.withReadLock { board.get(id) }
 *     return board.get(id);                            rw.withWriteLock { board.put(id, note) }
 * }
 * try (var w = rw.writeLockAsync().join()) { board.put(id, note); }
 *
 * // Java, on the pump (never blocks it): continue when the lock is ours
 * Task.from(rw.readLockAsync()).thenOn(ui, r -> { try (r) { return board.get(id); } });
 * }</pre>
 *
 * <ul>
 *   <li><b>Many readers or one writer.</b> A writer holds the lock alone; readers share it.</li>
 *   <li><b>Writer-preferring, fair order.</b> Requests that cannot be granted at once wait in one
 *       FIFO queue, in the order their calls began to wait, and are granted in that order. A new
 *       reader does not join the readers in place while any request waits: it queues, so a waiting
 *       writer is never starved by a stream of readers. When the lock becomes free, the request at
 *       the head is granted: a writer alone, or the head's run of consecutive readers together, up to
 *       the next queued writer. So writers get the lock in FIFO order, and the readers queued behind
 *       a writer get it together right after that writer (and before the writer queued after
 *       them): neither side starves. {@link #tryReadLock()} and {@link #tryWriteLock()} never barge
 *       ahead of a waiting request either.</li>
 *   <li><b>Held locks are handles.</b> A granted request yields a {@link ReadLock} or a
 *       {@link WriteLock} ({@link AutoCloseable}, so try-with-resources releases it). Releasing is
 *       <em>idempotent</em>: the first {@code unlock()} / {@code close()} of a handle releases its
 *       hold and returns {@code true}, later calls return {@code false} and change nothing, so a
 *       handle can never release another holder's lock. {@link WriteLock#downgrade()} turns a write
 *       lock into a read lock atomically (no writer can get in between); downgrading a released
 *       handle throws {@link IllegalStateException}.</li>
 *   <li><b>Not reentrant.</b> A holder that asks again may wait for itself: a reader that asks for
 *       another read lock while a writer waits queues behind that writer, and a reader cannot
 *       upgrade to a writer (release and ask for the write lock instead).</li>
 *   <li><b>Cancellation.</b> A pending {@code readLockAsync()} / {@code writeLockAsync()} is cancelled
 *       through its awaitable (or by cancelling the Kotlin coroutine). The decision is immediate:
 *       {@code cancel()} returns {@code true} and the caller does not hold the lock; if the lock was
 *       granted at that same instant it is released again and passes on in queue order. If the
 *       grant completed the awaitable first, {@code cancel()} returns {@code false} and the caller
 *       holds the lock (and releases it as usual). A cancelled waiter never holds or leaks the lock,
 *       and a withdrawn writer lets the readers queued behind it in at once if the lock is only
 *       read-held.</li>
 *   <li><b>Timeouts</b>, as for every wait: {@code Task.from(rw.writeLockAsync()).withTimeout(d)}
 *       withdraws the wait when {@code d} passes (the task then fails with
 *       {@link dev.corobridge.bridge.TaskTimeoutException}; if the lock was granted first, the task
 *       completes with it); Kotlin: {@code withTimeout(d) { rw.withWriteLock { … } }}. A plain
 *       {@code join(d)} bounds the wait only: after its {@code TimeoutException}, {@code cancel()}
 *       the awaitable, and if that returns {@code false} the lock is yours to release.</li>
 *   <li><b>Threads.</b> A Java awaitable completes on the thread that released the lock (callbacks
 *       run there: keep them short or hop with {@code Task.from(...).thenOn(context, ...)}); a virtual
 *       thread in {@code join()} is unparked. A Kotlin coroutine resumes on its own dispatcher.
 *       A callback may release at once: the grants that follow run in bounded stack (see
 *       {@code Awaitable}).</li>
 * </ul>
 *
 * <h2>Implementation overview</h2>
 * One {@code long} state word holds the number of readers, a "writer holds" bit and a "queue not
 * empty" bit. While the queue is empty, acquiring and releasing are single compare-and-sets on the
 * state word (lock-free: a reader adds one when no writer holds, a writer swaps 0 for "writer
 * holds"). A request that cannot be granted takes a short internal guard (a
 * {@link ReentrantLock}, tried a few times before blocking on it: it is held for a few steps),
 * sets the "queued" bit by compare-and-set and links itself at the tail of an intrusive doubly
 * linked queue. While that bit is set, every fast path fails (a reader or writer
 * sees the bit, a release cannot swap it away) except one: a reader that is not the last one
 * holding still releases by compare-and-set alone, because its release cannot let anyone in (a
 * queued writer needs the lock free; queued readers wait only for a writer). Every other change of
 * the state word goes through the guard: the last reader's release, a writer's release, grants,
 * withdrawals and downgrades run under it, and whichever of them leaves the lock grantable to the
 * head grants it there — unlinking the head writer, or the head's run of readers, and adding them
 * to the state word by compare-and-set in the same guarded step — and clears the bit when the
 * queue empties. The granted requests are completed after the guard is released, so no user
 * code runs under it; a grant and a withdrawal of the same request are ordered by the guard (the
 * one that finds it still queued wins). After every guarded step the head of the queue cannot be
 * granted, which is why no wake-up is lost.
 *
 * <p><b>Memory effects.</b> Actions of a holder before it releases its lock (or downgrades it)
 * happen-before the actions of every holder that is granted the lock after that release: the
 * release and the grant are ordered by the state word's volatile compare-and-sets or by the guard,
 * and a waiter's outcome is published (a volatile write) before it resumes.
 *
 * <p><b>Thread-safety.</b> All methods are safe from any thread. The guard is held only for a
 * constant number of steps plus one step per reader granted together, never while running a
 * callback.
 */
public final class AsyncReadWriteMutex {

    private static final long WRITER = 1;
    private static final long QUEUED = 2;
    private static final long READER = 4;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(AsyncReadWriteMutex.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** How many times {@link #lockGuard()} tries the guard before it blocks on it (measured in benchmarks/SYNC.md). */
    private static final int GUARD_SPINS = 64;

    /** Readers × {@link #READER}, plus {@link #WRITER} and {@link #QUEUED} bits. */
    private volatile long state;

    /** Guards the queue; while {@link #QUEUED} is set, also every change of {@link #state}. */
    private final ReentrantLock guard = new ReentrantLock();
    private ReadWriteRequest head;
    private ReadWriteRequest tail;
    /** Written under the guard, read anywhere (introspection). */
    private volatile int queuedReaders;
    private volatile int queuedWriters;

    /** An unlocked mutex. */
    public AsyncReadWriteMutex() {
    }

    // ------------------------------------------------------------------ acquire

    /**
     * Takes a read lock, waiting without blocking while a writer holds the lock or any request
     * waits. The awaitable completes with the held lock; release it with {@link ReadLock#unlock()}
     * or {@code close()}. Cancelling it withdraws the wait (see the class comment).
     * Kotlin suspends with {@code readLock()} / {@code withReadLock {}} instead; this handle is for
     * Java (a Kotlin caller that holds it must cancel it itself if its coroutine is cancelled, or it
     * may take the lock for nobody).
     */
    public Awaitable<ReadLock> readLockAsync() {
        if (tryAcquireRead()) {
            return Completions.value(new ReadLock(this));
        }
        ReadWriteWait<ReadLock> wait = new ReadWriteWait<>(this, false);
        submit(wait.request);
        return wait;
    }

    /**
     * Takes the write lock, waiting without blocking while anyone holds the lock or any request
     * waits. The awaitable completes with the held lock; release it with {@link WriteLock#unlock()}
     * or {@code close()}, or {@linkplain WriteLock#downgrade() downgrade} it. Cancelling it
     * withdraws the wait (see the class comment). Kotlin: {@code writeLock()} /
     * {@code withWriteLock {}}.
     */
    public Awaitable<WriteLock> writeLockAsync() {
        if (tryAcquireWrite()) {
            return Completions.value(new WriteLock(this));
        }
        ReadWriteWait<WriteLock> wait = new ReadWriteWait<>(this, true);
        submit(wait.request);
        return wait;
    }

    /**
     * A read lock if one can be had now — no writer holds the lock and no request waits — else
     * {@code null}.
     */
    public ReadLock tryReadLock() {
        return tryAcquireRead() ? new ReadLock(this) : null;
    }

    /** The write lock if the mutex is free now (nobody holds it, nobody waits), else {@code null}. */
    public WriteLock tryWriteLock() {
        return tryAcquireWrite() ? new WriteLock(this) : null;
    }

    // ------------------------------------------------------------------ introspection

    /** The number of read locks held now (a snapshot). */
    public int getReaders() {
        return (int) (state / READER);
    }

    /** Whether a writer holds the lock now. */
    public boolean isWriteLocked() {
        return (state & WRITER) != 0;
    }

    /** Whether anyone holds the lock now. */
    public boolean isLocked() {
        return (state & ~QUEUED) != 0;
    }

    /** Read requests waiting now (a snapshot). */
    public int getQueuedReaders() {
        return queuedReaders;
    }

    /** Write requests waiting now (a snapshot). */
    public int getQueuedWriters() {
        return queuedWriters;
    }

    /** Whether any request waits now. */
    public boolean hasWaiters() {
        return (state & QUEUED) != 0;
    }

    @Override
    public String toString() {
        long s = state;
        String held = (s & WRITER) != 0 ? "write-locked" : s >= READER ? (s / READER) + " readers" : "unlocked";
        return "AsyncReadWriteMutex[" + held + ", queued readers=" + queuedReaders + ", writers=" + queuedWriters + "]";
    }

    // ------------------------------------------------------------------ state machine

    /** A read hold for a caller whose request was granted (no state change). */
    ReadLock heldRead() {
        return new ReadLock(this);
    }

    /** The write hold for a caller whose request was granted (no state change). */
    WriteLock heldWrite() {
        return new WriteLock(this);
    }

    /** Takes a read hold if no writer holds and nobody waits. */
    boolean tryAcquireRead() {
        long s;
        while (((s = state) & (WRITER | QUEUED)) == 0) {
            if (STATE.compareAndSet(this, s, s + READER)) {
                return true;
            }
        }
        return false;
    }

    /** Takes the write hold if the mutex is free and nobody waits. */
    boolean tryAcquireWrite() {
        return state == 0 && STATE.compareAndSet(this, 0L, WRITER);
    }

    /**
     * Takes the guard: a few tries first, then blocking. The guard is held for a few steps only,
     * so a thread that finds it taken nearly always gets it within the tries, without parking
     * (which, for the platform threads of a coroutine dispatcher, is an OS-level wait and wake-up);
     * the tries are bounded, so a holder preempted by the OS costs the others a park, not a spin.
     */
    private void lockGuard() {
        for (int i = 0; i < GUARD_SPINS; i++) {
            if (guard.tryLock()) {
                return;
            }
            Thread.onSpinWait();
        }
        guard.lock();
    }

    /** Grants {@code r} now (delivering it on this thread) if it can be, else queues it. */
    void submit(ReadWriteRequest r) {
        if (enqueue(r)) {
            r.granted(this); // became grantable since the fast path failed
        }
    }

    /** Grants {@code r} now if it can be ({@code true}: deliver it), else queues it ({@code false}). */
    private boolean enqueue(ReadWriteRequest r) {
        lockGuard();
        try {
            long s = state;
            while (true) {
                boolean grantable = r.write ? s == 0 : (s & (WRITER | QUEUED)) == 0;
                if (grantable) {
                    if (STATE.compareAndSet(this, s, r.write ? WRITER : s + READER)) {
                        return true;
                    }
                } else if ((s & QUEUED) != 0 || STATE.compareAndSet(this, s, s | QUEUED)) {
                    link(r);
                    return false;
                }
                s = state; // a fast path changed it (possible only while QUEUED is clear)
            }
        } finally {
            guard.unlock();
        }
    }

    /**
     * Releases one read hold. Lock-free while nobody waits, and also while other readers keep
     * holding: such a release cannot make the head of the queue grantable (a queued writer needs
     * the lock free, and queued readers are held back by a writer only), so it needs no guard.
     * Only the last reader's release with requests waiting takes the guard and grants the head.
     */
    void releaseRead() {
        long s;
        while (((s = state) & QUEUED) == 0 || s >= 2 * READER) {
            checkReadHeld(s);
            if (STATE.compareAndSet(this, s, s - READER)) {
                return;
            }
        }
        ReadWriteRequest granted = null;
        lockGuard();
        try {
            while (true) {
                s = state;
                checkReadHeld(s);
                if (STATE.compareAndSet(this, s, s - READER)) {
                    break;
                }
            }
            long now = s - READER;
            if ((now & QUEUED) != 0 && now < READER) { // the last reader left: the head writer may go
                granted = grantFromHead();
            }
        } finally {
            guard.unlock();
        }
        deliver(granted);
    }

    /** Releases the write hold. */
    void releaseWrite() {
        if (STATE.compareAndSet(this, WRITER, 0L)) {
            return;
        }
        ReadWriteRequest granted = null;
        lockGuard();
        try {
            long s;
            while (true) {
                s = state;
                checkWriteHeld(s);
                if (STATE.compareAndSet(this, s, s & ~WRITER)) {
                    break;
                }
            }
            if ((s & QUEUED) != 0) {
                granted = grantFromHead();
            }
        } finally {
            guard.unlock();
        }
        deliver(granted);
    }

    /** Turns the write hold into one read hold without the lock ever being free. */
    void downgradeWrite() {
        if (STATE.compareAndSet(this, WRITER, READER)) {
            return;
        }
        ReadWriteRequest granted = null;
        lockGuard();
        try {
            long s;
            while (true) {
                s = state;
                checkWriteHeld(s);
                if (STATE.compareAndSet(this, s, (s & ~WRITER) + READER)) {
                    break;
                }
            }
            if ((s & QUEUED) != 0) {
                granted = grantFromHead(); // the readers at the head join this one
            }
        } finally {
            guard.unlock();
        }
        deliver(granted);
    }

    /**
     * Takes {@code r} out of the queue if it is still there (its waiter gave up); if it was the head,
     * grants whoever that lets in. A request no longer queued was granted: its grant releases the
     * lock again.
     */
    void withdraw(ReadWriteRequest r) {
        ReadWriteRequest granted = null;
        lockGuard();
        try {
            if (!r.queued) {
                return;
            }
            boolean wasHead = r == head;
            unlink(r);
            if (head == null) {
                clearQueued();
            } else if (wasHead) {
                granted = grantFromHead();
            }
        } finally {
            guard.unlock();
        }
        deliver(granted);
    }

    /**
     * Under the guard, with the queue not empty: grants the head if the lock allows — a writer when
     * nobody holds the lock, the head's run of readers when no writer holds it — and returns the
     * granted requests chained by {@code next}. While the queue is not empty the state word changes
     * only under the guard, except for a release by a reader that is not the last; so the decision
     * made on one read of the word holds (such a release never frees the lock nor touches the
     * writer bit), and the grant is applied to the word as a change by compare-and-set.
     */
    private ReadWriteRequest grantFromHead() {
        long s = state;
        ReadWriteRequest h = head;
        ReadWriteRequest first = null;
        long add;
        if (h.write) {
            if ((s & ~QUEUED) != 0) {
                return null;
            }
            unlink(h);
            first = h;
            add = WRITER;
        } else {
            if ((s & WRITER) != 0) {
                return null;
            }
            ReadWriteRequest last = null;
            add = 0;
            while (h != null && !h.write) {
                unlink(h);
                add += READER;
                if (first == null) {
                    first = h;
                } else {
                    last.next = h;
                }
                last = h;
                h = head;
            }
        }
        long clear = head == null ? QUEUED : 0;
        do {
            s = state;
        } while (!STATE.compareAndSet(this, s, (s + add) & ~clear));
        return first;
    }

    /** Delivers a chain of granted requests, outside the guard. */
    private void deliver(ReadWriteRequest granted) {
        while (granted != null) {
            ReadWriteRequest next = granted.next;
            granted.next = null;
            granted.granted(this);
            granted = next;
        }
    }

    private void link(ReadWriteRequest r) {
        r.queued = true;
        r.prev = tail;
        r.next = null;
        if (tail == null) {
            head = r;
        } else {
            tail.next = r;
        }
        tail = r;
        if (r.write) {
            queuedWriters++;
        } else {
            queuedReaders++;
        }
    }

    private void unlink(ReadWriteRequest r) {
        ReadWriteRequest p = r.prev;
        ReadWriteRequest n = r.next;
        if (p == null) {
            head = n;
        } else {
            p.next = n;
        }
        if (n == null) {
            tail = p;
        } else {
            n.prev = p;
        }
        r.prev = null;
        r.next = null;
        r.queued = false;
        if (r.write) {
            queuedWriters--;
        } else {
            queuedReaders--;
        }
    }

    /** The queue emptied (under the guard): the fast paths may run again. */
    private void clearQueued() {
        long s;
        do {
            s = state;
        } while (!STATE.compareAndSet(this, s, s & ~QUEUED));
    }

    private void checkReadHeld(long s) {
        if (s < READER) {
            throw new IllegalStateException("AsyncReadWriteMutex: a read lock was released that is not held; " + this);
        }
    }

    private void checkWriteHeld(long s) {
        if ((s & WRITER) == 0) {
            throw new IllegalStateException("AsyncReadWriteMutex: the write lock was released while not held; " + this);
        }
    }

    // ------------------------------------------------------------------ handles

    /**
     * One read hold on an {@link AsyncReadWriteMutex}. Releasing is idempotent: the first
     * {@link #unlock()} (or {@link #close()}) releases it, later ones do nothing. Safe from any thread.
     */
    public static final class ReadLock implements AutoCloseable {
        private static final VarHandle RELEASED;

        static {
            try {
                RELEASED = MethodHandles.lookup().findVarHandle(ReadLock.class, "released", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final AsyncReadWriteMutex mutex;
        @SuppressWarnings("unused")
        private volatile boolean released;

        ReadLock(AsyncReadWriteMutex mutex) {
            this.mutex = mutex;
        }

        /**
         * Releases this read hold; when it was the last one, the lock goes to the head of the queue.
         * Returns {@code true} if this call released it, {@code false} if it was released before.
         */
        public boolean unlock() {
            if (!RELEASED.compareAndSet(this, false, true)) {
                return false;
            }
            mutex.releaseRead();
            return true;
        }

        /** {@link #unlock()}, for try-with-resources; a no-op if already released. */
        @Override
        public void close() {
            unlock();
        }

        /** Whether this hold is still held (not yet released). */
        public boolean isHeld() {
            return !released;
        }

        /** The mutex this hold is on. */
        public AsyncReadWriteMutex getMutex() {
            return mutex;
        }

        @Override
        public String toString() {
            return "ReadLock[" + (released ? "released" : "held") + "] of " + mutex;
        }
    }

    /**
     * The write hold on an {@link AsyncReadWriteMutex}. Releasing is idempotent: the first
     * {@link #unlock()} (or {@link #close()}) releases it, later ones do nothing; a
     * {@link #downgrade()} releases it too (into a read hold). Safe from any thread.
     */
    public static final class WriteLock implements AutoCloseable {
        private static final VarHandle RELEASED;

        static {
            try {
                RELEASED = MethodHandles.lookup().findVarHandle(WriteLock.class, "released", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final AsyncReadWriteMutex mutex;
        @SuppressWarnings("unused")
        private volatile boolean released;

        WriteLock(AsyncReadWriteMutex mutex) {
            this.mutex = mutex;
        }

        /**
         * Releases the write hold; the lock goes to the head of the queue (a writer, or the readers
         * queued before the next writer). Returns {@code true} if this call released it,
         * {@code false} if it was released (or downgraded) before.
         */
        public boolean unlock() {
            if (!RELEASED.compareAndSet(this, false, true)) {
                return false;
            }
            mutex.releaseWrite();
            return true;
        }

        /** {@link #unlock()}, for try-with-resources; a no-op if already released or downgraded. */
        @Override
        public void close() {
            unlock();
        }

        /**
         * Atomically turns this write hold into a read hold: no writer can take the lock in
         * between, and the readers queued at the head (before the next queued writer) are let in
         * with it. This handle is released by it (a later {@code close()} does nothing); release the
         * returned read hold as usual.
         *
         * @throws IllegalStateException if this hold was already released or downgraded
         */
        public ReadLock downgrade() {
            if (!RELEASED.compareAndSet(this, false, true)) {
                throw new IllegalStateException("downgrade() of a write lock that was already released; " + mutex);
            }
            mutex.downgradeWrite();
            return new ReadLock(mutex);
        }

        /** Whether this hold is still held (not yet released or downgraded). */
        public boolean isHeld() {
            return !released;
        }

        /** The mutex this hold is on. */
        public AsyncReadWriteMutex getMutex() {
            return mutex;
        }

        @Override
        public String toString() {
            return "WriteLock[" + (released ? "released" : "held") + "] of " + mutex;
        }
    }
}
