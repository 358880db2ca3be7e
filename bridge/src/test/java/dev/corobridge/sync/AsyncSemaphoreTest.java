package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The Java face of {@link AsyncSemaphore}: bounds concurrency without blocking, FIFO, errors, cancellation. */
class AsyncSemaphoreTest {

    @Test
    void permitsAreTakenAtOnceUntilNoneIsLeftThenWaitersAreServedFifo() {
        AsyncSemaphore s = new AsyncSemaphore(2);
        assertTrue(s.acquireAsync().isDone());
        assertTrue(s.tryAcquire());
        assertFalse(s.tryAcquire());
        assertEquals(0, s.getAvailablePermits());
        List<Integer> order = new ArrayList<>();
        List<Awaitable<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int n = i;
            Awaitable<Void> w = s.acquireAsync();
            assertFalse(w.isDone());
            w.onComplete(o -> order.add(n));
            waits.add(w);
        }
        s.release();
        s.release();
        assertEquals(List.of(0, 1), order);
        s.release();
        assertEquals(List.of(0, 1, 2), order);
        s.release();
        s.release();
        assertEquals(2, s.getAvailablePermits());
    }

    @Test
    void boundsConcurrencyOfVirtualThreads() throws Exception {
        AsyncSemaphore s = new AsyncSemaphore(3);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        try (ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 32; t++) {
                fs.add(vts.submit(() -> {
                    for (int i = 0; i < 100; i++) {
                        s.acquireAsync().join();
                        try {
                            max.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            Thread.yield();
                            inside.decrementAndGet();
                        } finally {
                            s.release();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        assertTrue(max.get() <= 3, "at most 3 inside, saw " + max);
        assertEquals(3, s.getAvailablePermits());
    }

    @Test
    void cancellingAPendingAcquireWithdrawsItOnly() {
        AsyncSemaphore s = new AsyncSemaphore(1, 1);
        Awaitable<Void> a = s.acquireAsync();
        Awaitable<Void> b = s.acquireAsync();
        assertTrue(a.cancel());
        assertTrue(a.outcomeOrNull().isCancelled());
        s.release();
        assertTrue(b.isDone() && b.outcomeOrNull().isSuccess(), "the permit skipped the cancelled waiter");
        s.release();
        assertEquals(1, s.getAvailablePermits());
    }

    @Test
    void badUseIsAClearError() {
        assertThrows(IllegalArgumentException.class, () -> new AsyncSemaphore(0));
        assertThrows(IllegalArgumentException.class, () -> new AsyncSemaphore(2, 3));
        assertThrows(IllegalArgumentException.class, () -> new AsyncSemaphore(2, -1));
        AsyncSemaphore s = new AsyncSemaphore(1);
        IllegalStateException e = assertThrows(IllegalStateException.class, s::release);
        assertTrue(e.getMessage().contains("without a matching acquire"), e.getMessage());
        assertEquals(1, s.getAvailablePermits(), "the refused release changed nothing");
        assertEquals("AsyncSemaphore[1/1 available]", s.toString());
    }
}
