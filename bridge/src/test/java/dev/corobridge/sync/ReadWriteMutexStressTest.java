package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.outcomeOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.sync.AsyncReadWriteMutex.ReadLock;
import dev.corobridge.sync.AsyncReadWriteMutex.WriteLock;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.Test;

/**
 * {@link AsyncReadWriteMutex} against {@link ReentrantReadWriteLock}'s semantics, under stress: the
 * same workload — threads that read, write, downgrade and give up waiting at random moments —
 * runs on both locks through one harness, which checks the read-write lock contract on each:
 * never a writer with readers or two writers; a give-up either leaves the thread without the lock
 * or (it lost the race) with it, never anything in between; every attempt ends (granted or given
 * up, within the bounded wait); at the end the lock is free, with nothing queued. The JDK lock
 * passing the same checks shows the harness asks no more than a read-write lock promises; ours
 * gives up by {@code cancel()} at a random moment before, during or after the grant (10^5 attempts
 * per thread), where the JDK's times out.
 */
class ReadWriteMutexStressTest {

    private static final int THREADS = 4;
    private static final int ATTEMPTS_PER_THREAD = 25_000;

    /** The lock under test, as the harness drives it. */
    private interface UnderTest {
        /** Tries to take the lock, giving up at a random moment; the held lock, or null if it gave up. */
        Object acquire(boolean write, SplittableRandom rnd) throws Exception;

        /** Downgrades a held write lock: the held read lock. */
        Object downgrade(Object writeLock);

        void release(Object lock);

        /** Whether the lock is free and nobody waits (after the run). */
        boolean isFreeAndIdle();
    }

    @Test
    void asyncReadWriteMutexKeepsTheContractUnderCancellation() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        AtomicLong cancelledWaits = new AtomicLong();
        AtomicLong grantedThenCancelled = new AtomicLong();
        Counts c = run(new UnderTest() {
            @Override
            public Object acquire(boolean write, SplittableRandom rnd) throws Exception {
                Awaitable<? extends AutoCloseable> wait = write ? rw.writeLockAsync() : rw.readLockAsync();
                if (rnd.nextInt(3) != 0) {
                    Outcome<? extends AutoCloseable> o = outcomeOf(wait);
                    if (!(o instanceof Outcome.Success<? extends AutoCloseable> s)) {
                        throw new AssertionError("a wait nobody cancelled ended " + o);
                    }
                    return s.value();
                }
                spin(rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(300));
                boolean withdrawn = wait.cancel();
                Outcome<? extends AutoCloseable> o = outcomeOf(wait);
                if (withdrawn != o.isCancelled() || (!withdrawn && !o.isSuccess())) {
                    throw new AssertionError("cancel() returned " + withdrawn + " but the wait ended " + o);
                }
                if (withdrawn) {
                    cancelledWaits.incrementAndGet();
                    return null;
                }
                grantedThenCancelled.incrementAndGet();
                return ((Outcome.Success<? extends AutoCloseable>) o).value();
            }

            @Override
            public Object downgrade(Object writeLock) {
                return ((WriteLock) writeLock).downgrade();
            }

            @Override
            public void release(Object lock) {
                boolean released = lock instanceof WriteLock w ? w.unlock() : ((ReadLock) lock).unlock();
                assertTrue(released, "a held lock is released once");
            }

            @Override
            public boolean isFreeAndIdle() {
                return !rw.isLocked() && !rw.hasWaiters() && rw.getQueuedReaders() == 0 && rw.getQueuedWriters() == 0;
            }
        });
        assertTrue(cancelledWaits.get() > 0 && grantedThenCancelled.get() > 0,
                "cancels landed both before and after grants: " + cancelledWaits + " / " + grantedThenCancelled + ", " + c);
        WriteLock w = rw.tryWriteLock();
        assertNotNull(w, "the fast path works after the run: nothing leaked");
        w.close();
    }

    @Test
    void reentrantReadWriteLockPassesTheSameHarness() throws Exception {
        ReentrantReadWriteLock rw = new ReentrantReadWriteLock(true);
        run(new UnderTest() {
            @Override
            public Object acquire(boolean write, SplittableRandom rnd) throws Exception {
                java.util.concurrent.locks.Lock lock = write ? rw.writeLock() : rw.readLock();
                if (rnd.nextInt(3) != 0) {
                    if (!lock.tryLock(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                        throw new AssertionError("not granted within " + WAIT);
                    }
                    return lock;
                }
                return lock.tryLock(rnd.nextInt(300), TimeUnit.NANOSECONDS) ? lock : null;
            }

            @Override
            public Object downgrade(Object writeLock) {
                rw.readLock().lock(); // JDK idiom: take the read lock holding the write lock, then release the write lock
                rw.writeLock().unlock();
                return rw.readLock();
            }

            @Override
            public void release(Object lock) {
                ((java.util.concurrent.locks.Lock) lock).unlock();
            }

            @Override
            public boolean isFreeAndIdle() {
                return rw.getReadLockCount() == 0 && !rw.isWriteLocked() && !rw.hasQueuedThreads();
            }
        });
    }

    private record Counts(long reads, long writes, long downgrades, long gaveUp) {
    }

    private static Counts run(UnderTest lock) throws Exception {
        AtomicInteger readers = new AtomicInteger();
        AtomicInteger writers = new AtomicInteger();
        AtomicLong reads = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        AtomicLong downgrades = new AtomicLong();
        AtomicLong gaveUp = new AtomicLong();
        AtomicReference<String> failure = new AtomicReference<>();
        List<Callable<Void>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long seed = 1234 + t;
            workers.add(() -> {
                SplittableRandom rnd = new SplittableRandom(seed);
                for (int i = 0; i < ATTEMPTS_PER_THREAD && failure.get() == null; i++) {
                    boolean write = rnd.nextInt(4) == 0;
                    Object held = lock.acquire(write, rnd);
                    if (held == null) {
                        gaveUp.incrementAndGet();
                        continue;
                    }
                    if (write) {
                        writes.incrementAndGet();
                        int w = writers.incrementAndGet();
                        int r = readers.get();
                        if (w != 1 || r != 0) {
                            failure.compareAndSet(null, "a writer holds with " + (w - 1) + " writers and " + r + " readers");
                        }
                        spin(rnd.nextInt(100));
                        if (rnd.nextInt(3) == 0) {
                            readers.incrementAndGet(); // a reader from here on, without a gap
                            writers.decrementAndGet();
                            held = lock.downgrade(held);
                            downgrades.incrementAndGet();
                            if (writers.get() != 0) {
                                failure.compareAndSet(null, "a writer got in during a downgrade");
                            }
                            spin(rnd.nextInt(100));
                            readers.decrementAndGet();
                        } else {
                            writers.decrementAndGet();
                        }
                    } else {
                        reads.incrementAndGet();
                        readers.incrementAndGet();
                        if (writers.get() != 0) {
                            failure.compareAndSet(null, "a reader holds with a writer");
                        }
                        spin(rnd.nextInt(100));
                        readers.decrementAndGet();
                    }
                    lock.release(held);
                }
                return null;
            });
        }
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Void>> fs = new ArrayList<>();
            for (Callable<Void> w : workers) {
                fs.add(pool.submit(w));
            }
            for (Future<Void> f : fs) {
                f.get(WAIT.toSeconds() * 4, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        Counts c = new Counts(reads.get(), writes.get(), downgrades.get(), gaveUp.get());
        assertNull(failure.get(), failure.get() + " " + c);
        assertEquals((long) THREADS * ATTEMPTS_PER_THREAD, c.reads + c.writes + c.gaveUp, "every attempt ended: " + c);
        assertTrue(c.reads > 0 && c.writes > 0 && c.downgrades > 0 && c.gaveUp > 0, "every path ran: " + c);
        assertTrue(lock.isFreeAndIdle(), "free and idle at the end: " + c);
        return c;
    }

    private static void spin(int n) {
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }
}
