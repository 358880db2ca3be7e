package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.outcomeOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
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
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Cancellation races on the Java faces of {@link AsyncSemaphore} and {@link AsyncMutex}: in
 * 10^5 acquisitions each, a cancel lands at a random moment — before the grant, during it, after
 * it — while other threads release. Permits are conserved: a {@code cancel()} that returns
 * {@code true} means the waiter never holds a permit, {@code false} means it does (and releases
 * it); no more than the permits are ever held at once; at the end every permit is available again.
 */
class PermitCancellationRaceTest {

    private static final int THREADS = 4;
    private static final int OPS_PER_THREAD = 25_000; // 10^5 cancel points in all

    @Test
    void semaphorePermitsAreConserved() throws Exception {
        AsyncSemaphore s = new AsyncSemaphore(2);
        Result r = race(2, s::acquireAsync, s::release);
        assertEquals(2, s.getAvailablePermits(), "every permit is back: " + r);
        assertTrue(s.tryAcquire() && s.tryAcquire() && !s.tryAcquire(), "kotlinx state consistent");
    }

    @Test
    void mutexIsNeverHeldTwiceOrLost() throws Exception {
        AsyncMutex m = new AsyncMutex();
        Result r = race(1, m::lockAsync, m::unlock);
        assertFalse(m.isLocked(), "the lock is free at the end: " + r);
        assertTrue(m.tryLock());
    }

    private record Result(long granted, long cancelled) {
    }

    private static Result race(int permits, Supplier<Awaitable<Void>> acquire, Runnable release) throws Exception {
        AtomicInteger inUse = new AtomicInteger();
        AtomicLong granted = new AtomicLong();
        AtomicLong cancelled = new AtomicLong();
        AtomicReference<String> failure = new AtomicReference<>();
        List<Callable<Void>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            long seed = 42 + t;
            workers.add(() -> {
                SplittableRandom rnd = new SplittableRandom(seed);
                for (int i = 0; i < OPS_PER_THREAD && failure.get() == null; i++) {
                    Awaitable<Void> a = acquire.get();
                    spin(rnd.nextInt(4) == 0 ? 0 : rnd.nextInt(200));
                    boolean withdrawn = a.cancel();
                    Outcome<Void> o = outcomeOf(a);
                    if (withdrawn) {
                        cancelled.incrementAndGet();
                        if (!o.isCancelled()) {
                            failure.compareAndSet(null, "cancel() returned true but the outcome is " + o);
                        }
                    } else {
                        if (!o.isSuccess()) {
                            failure.compareAndSet(null, "cancel() returned false but the outcome is " + o);
                            continue;
                        }
                        granted.incrementAndGet();
                        int n = inUse.incrementAndGet();
                        if (n > permits) {
                            failure.compareAndSet(null, n + " holders of " + permits + " permits");
                        }
                        spin(rnd.nextInt(50));
                        inUse.decrementAndGet();
                        release.run();
                    }
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
                f.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertNull(failure.get());
        assertEquals((long) THREADS * OPS_PER_THREAD, granted.get() + cancelled.get());
        assertTrue(cancelled.get() > 0 && granted.get() > 0, "both outcomes occurred: " + granted + "/" + cancelled);
        return new Result(granted.get(), cancelled.get());
    }

    private static void spin(int n) {
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }
}
