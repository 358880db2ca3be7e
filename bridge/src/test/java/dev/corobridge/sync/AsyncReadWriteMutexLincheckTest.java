package dev.corobridge.sync;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.lincheck.NoExceptionVerifier;
import dev.corobridge.lincheck.Scenarios;
import dev.corobridge.sync.AsyncReadWriteMutex.ReadLock;
import dev.corobridge.sync.AsyncReadWriteMutex.WriteLock;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Options;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking and stress of {@link AsyncReadWriteMutex}'s state machine: three threads
 * start read and write waits, try to lock, release what they hold, downgrade a write lock and
 * cancel waits (pending, being granted, or granted), in every interleaving.
 *
 * <p>{@link Ops#release()} releases "some lock the test holds", which is no atomic operation of the
 * mutex, so results are not compared with a sequential run ({@link NoExceptionVerifier}: any
 * result but an exception); the properties are checked instead:
 * <ul>
 *   <li>exclusion, as each lock is obtained: never a writer with readers, never two writers;</li>
 *   <li>conservation, after every interleaving: the mutex's readers and writer are exactly the
 *       locks the test holds (nothing leaked by a cancellation, nothing lost);</li>
 *   <li>no lost wake-up: a wait still pending at the end has a reason to wait — someone holds the
 *       lock, and if only readers do, a writer waits (the pending ones are behind it) — and the
 *       mutex counts exactly the pending waits as queued;</li>
 *   <li>every wait that ended ran its callback once; it ended cancelled if and only if a
 *       {@code cancel()} of it returned {@code true}; nothing fails.</li>
 * </ul>
 */
class AsyncReadWriteMutexLincheckTest {

    public static class Ops {
        private final AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        /** Every wait started, oldest first (a scenario has few operations). */
        private final AtomicReferenceArray<Acquisition> acquisitions = new AtomicReferenceArray<>(64);
        private final AtomicInteger started = new AtomicInteger();
        /** Locks held from tryReadLock / tryWriteLock / downgrade, not yet released. */
        private final Queue<ReadLock> otherReads = new ConcurrentLinkedQueue<>();
        private final Queue<WriteLock> otherWrites = new ConcurrentLinkedQueue<>();
        /** Locks the test holds now, counted as they are obtained and before they are released. */
        private final AtomicInteger readers = new AtomicInteger();
        private final AtomicInteger writers = new AtomicInteger();
        private final Queue<String> problems = new ConcurrentLinkedQueue<>();

        /** One wait: its awaitable, kind, callbacks, the cancel and release made on it. */
        private final class Acquisition {
            final boolean write;
            final Awaitable<? extends AutoCloseable> wait;
            final AtomicInteger callbacks = new AtomicInteger();
            final AtomicBoolean cancelRequested = new AtomicBoolean();
            /** What cancel() returned: null while not cancelled. */
            volatile Boolean cancelled;
            final AtomicBoolean released = new AtomicBoolean();
            /** Set once the grant was counted (by the callback): only then may the test release it. */
            volatile AutoCloseable held;

            Acquisition(boolean write, Awaitable<? extends AutoCloseable> wait) {
                this.write = write;
                this.wait = wait;
            }
        }

        private void obtained(boolean write) {
            if (write) {
                int w = writers.incrementAndGet();
                int r = readers.get();
                if (w > 1 || r > 0) {
                    problems.add("a writer was granted with " + (w - 1) + " other writers and " + r + " readers");
                }
            } else {
                readers.incrementAndGet();
                int w = writers.get();
                if (w > 0) {
                    problems.add("a reader was granted while " + w + " writers hold the lock");
                }
            }
        }

        private void start(boolean write, Awaitable<? extends AutoCloseable> wait) {
            Acquisition a = new Acquisition(write, wait);
            acquisitions.set(started.getAndIncrement(), a);
            wait.onComplete(o -> {
                a.callbacks.incrementAndGet();
                if (o instanceof Outcome.Success<? extends AutoCloseable> s) {
                    obtained(write);
                    a.held = s.value();
                }
            });
        }

        @Operation
        public void readLock() {
            start(false, rw.readLockAsync());
        }

        @Operation
        public void writeLock() {
            start(true, rw.writeLockAsync());
        }

        @Operation
        public boolean tryReadLock() {
            ReadLock r = rw.tryReadLock();
            if (r == null) {
                return false;
            }
            obtained(false);
            otherReads.add(r);
            return true;
        }

        @Operation
        public boolean tryWriteLock() {
            WriteLock w = rw.tryWriteLock();
            if (w == null) {
                return false;
            }
            obtained(true);
            otherWrites.add(w);
            return true;
        }

        /** Releases one lock the test holds: a granted wait's, oldest first, else another; none: no-op. */
        @Operation
        public void release() {
            for (Acquisition a : acquisitions()) {
                AutoCloseable held = a.held;
                if (held != null && a.released.compareAndSet(false, true)) {
                    (a.write ? writers : readers).decrementAndGet();
                    unlock(held);
                    return;
                }
            }
            WriteLock w = otherWrites.poll();
            if (w != null) {
                writers.decrementAndGet();
                unlock(w);
                return;
            }
            ReadLock r = otherReads.poll();
            if (r != null) {
                readers.decrementAndGet();
                unlock(r);
            }
        }

        /** Downgrades a write lock the test holds (a granted wait's, else another); none: no-op. */
        @Operation
        public void downgrade() {
            WriteLock w = null;
            for (Acquisition a : acquisitions()) {
                if (a.write && a.held instanceof WriteLock held && a.released.compareAndSet(false, true)) {
                    w = held;
                    break;
                }
            }
            if (w == null && (w = otherWrites.poll()) == null) {
                return;
            }
            readers.incrementAndGet(); // the holder is a reader from now on, never without the lock
            writers.decrementAndGet();
            otherReads.add(w.downgrade());
        }

        /** Cancels the oldest wait not cancelled yet (pending, being granted, or granted). */
        @Operation
        public void cancelOldest() {
            for (Acquisition a : acquisitions()) {
                if (a.cancelRequested.compareAndSet(false, true)) {
                    a.cancelled = a.wait.cancel();
                    return;
                }
            }
        }

        /** Cancels the newest wait not cancelled yet. */
        @Operation
        public void cancelNewest() {
            List<Acquisition> all = acquisitions();
            for (int i = all.size() - 1; i >= 0; i--) {
                Acquisition a = all.get(i);
                if (a.cancelRequested.compareAndSet(false, true)) {
                    a.cancelled = a.wait.cancel();
                    return;
                }
            }
        }

        private void unlock(AutoCloseable lock) {
            boolean released = lock instanceof WriteLock w ? w.unlock() : ((ReadLock) lock).unlock();
            if (!released) {
                problems.add("a held lock was already released: " + lock);
            }
        }

        private List<Acquisition> acquisitions() {
            List<Acquisition> list = new ArrayList<>();
            for (int i = 0, n = started.get(); i < n; i++) {
                Acquisition a = acquisitions.get(i);
                if (a != null) { // null: its start is between taking the slot and filling it
                    list.add(a);
                }
            }
            return list;
        }

        @Validate
        public void invariants() {
            List<String> found = new ArrayList<>(problems);
            int r = readers.get();
            int w = writers.get();
            if (rw.getReaders() != r || rw.isWriteLocked() != (w == 1)) {
                found.add("the test holds " + r + " read and " + w + " write locks but the mutex says " + rw);
            }
            int pending = 0;
            boolean writerPending = false;
            int i = 0;
            for (Acquisition a : acquisitions()) {
                String name = (a.write ? "write" : "read") + " wait #" + i++;
                Outcome<? extends AutoCloseable> o = a.wait.outcomeOrNull();
                Boolean cancelled = a.cancelled;
                if (o == null) {
                    pending++;
                    writerPending |= a.write;
                    if (a.callbacks.get() != 0 || Boolean.TRUE.equals(cancelled)) {
                        found.add(name + " pending, but callbacks=" + a.callbacks.get() + " cancel()=" + cancelled);
                    }
                    continue;
                }
                if (a.callbacks.get() != 1) {
                    found.add(name + " ended " + o + " but its callback ran " + a.callbacks.get() + " times");
                }
                if (o.isCancelled() != Boolean.TRUE.equals(cancelled)) {
                    found.add(name + " ended " + o + " but cancel() returned " + cancelled);
                }
                if (!o.isSuccess() && !o.isCancelled()) {
                    found.add(name + " failed: " + o);
                }
            }
            if (pending > 0 && !rw.isLocked()) {
                found.add(pending + " waits pending on a free mutex (lost wake-up): " + rw);
            }
            if (pending > 0 && !rw.isWriteLocked() && !writerPending) {
                found.add("only readers hold the lock and only readers wait (lost wake-up): " + rw);
            }
            if (rw.getQueuedReaders() + rw.getQueuedWriters() != pending || rw.hasWaiters() != (pending > 0)) {
                found.add(pending + " waits pending but the mutex queues " + rw);
            }
            if (!found.isEmpty()) {
                throw new AssertionError(String.join("; ", found));
            }
        }
    }

    private static <O extends Options<O, ?>> O randomScenarios(O options) {
        return options
                .threads(3)
                .actorsPerThread(2)
                .actorsBefore(2)
                .actorsAfter(2)
                .verifier(NoExceptionVerifier.class);
    }

    @Test
    void modelChecking() {
        randomScenarios(new ModelCheckingOptions())
                .iterations(20)
                .invocationsPerIteration(250)
                // A write lock is released (granting the queued reader) while the reader is cancelled.
                .addCustomScenario(Scenarios.scenario(Ops.class, "tryWriteLock; readLock; writeLock", "release; release",
                        "release", "cancelOldest", "tryReadLock"))
                // The reader is released (granting the queued writer) while the writer is cancelled,
                // which must let the reader queued behind it in.
                .addCustomScenario(Scenarios.scenario(Ops.class, "tryReadLock; tryReadLock; writeLock; readLock", "release",
                        "release", "cancelOldest", "release"))
                // A downgrade racing a cancel of the head reader and a new writer.
                .addCustomScenario(Scenarios.scenario(Ops.class, "tryWriteLock; readLock; writeLock; readLock", "release",
                        "downgrade", "cancelOldest", "writeLock; cancelNewest"))
                .check(Ops.class);
    }

    @Test
    void stress() {
        randomScenarios(new StressOptions())
                .iterations(30)
                .invocationsPerIteration(2_000)
                .check(Ops.class);
    }
}
