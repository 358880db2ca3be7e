package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.valueOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Java faces of {@link AsyncEvent}, {@link AsyncLatch} and {@link WaitGroup}. */
class AsyncEventLatchWaitGroupTest {

    @Test
    void eventWakesEveryWaiterOnceAndLaterWaitsReturnAtOnce() throws Exception {
        AsyncEvent<String> e = new AsyncEvent<>();
        List<Awaitable<String>> waits = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            waits.add(e.awaitAsync());
        }
        assertFalse(e.isSet());
        assertNull(e.valueOrNull());
        assertTrue(e.set("go"));
        assertFalse(e.set("again"), "set once");
        for (Awaitable<String> w : waits) {
            assertEquals("go", w.outcomeOrNull() instanceof Outcome.Success<String> s ? s.value() : null);
        }
        assertTrue(e.awaitAsync().isDone(), "waiting after set returns at once");
        assertEquals("go", e.valueOrNull());
        assertTrue(e.toString().contains("set: go"));
    }

    @Test
    void eventWithoutValueAndVirtualThreadWaiters() throws Exception {
        AsyncEvent<Void> started = new AsyncEvent<>();
        try (ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Boolean>> fs = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                fs.add(vts.submit(() -> {
                    started.awaitAsync().join();
                    return started.isSet();
                }));
            }
            started.set();
            for (Future<Boolean> f : fs) {
                assertTrue(f.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void cancellingOneWaiterLeavesTheEventAndTheOthersAlone() throws Exception {
        AsyncEvent<Integer> e = new AsyncEvent<>();
        Awaitable<Integer> quitter = e.awaitAsync();
        Awaitable<Integer> stayer = e.awaitAsync();
        assertTrue(quitter.cancel());
        assertFalse(e.isSet());
        e.set(7);
        assertTrue(quitter.outcomeOrNull().isCancelled());
        assertEquals(7, valueOf(stayer));
    }

    @Test
    void abandoningAnEventCancelsEveryWaiter() {
        AsyncEvent<Integer> e = new AsyncEvent<>();
        Awaitable<Integer> w = e.awaitAsync();
        assertTrue(e.cancel());
        assertInstanceOf(CancellationException.class, w.outcomeOrNull().errorOrNull());
        assertTrue(e.awaitAsync().outcomeOrNull().isCancelled());
        assertFalse(e.set(1));
        assertFalse(e.isSet());
    }

    @Test
    void latchOpensOnTheLastCountDownAndStaysOpen() throws Exception {
        AsyncLatch l = new AsyncLatch(3);
        Awaitable<Void> w = l.awaitAsync();
        l.countDown();
        l.countDown();
        assertFalse(w.isDone());
        assertEquals(1, l.getCount());
        l.countDown();
        assertTrue(w.isDone());
        assertTrue(l.isOpen());
        l.countDown(); // no-op once open, as CountDownLatch
        assertEquals(0, l.getCount());
        assertTrue(l.awaitAsync().isDone());
        assertTrue(new AsyncLatch(0).awaitAsync().isDone());
        assertThrows(IllegalArgumentException.class, () -> new AsyncLatch(-1));
    }

    @Test
    void latchWaiterCanBeComposedOnAnyContext() throws Exception {
        AsyncLatch l = new AsyncLatch(1);
        ExecutorService single = Executors.newSingleThreadExecutor(r -> new Thread(r, "composer"));
        try {
            Task<String> then = Task.from(l.awaitAsync()).thenOn(single, v -> Thread.currentThread().getName());
            l.countDown();
            assertEquals("composer", valueOf(then));
        } finally {
            single.shutdownNow();
        }
    }

    @Test
    void waitGroupWaitsForEveryDoneAndCanBeReused() throws Exception {
        WaitGroup wg = new WaitGroup();
        assertTrue(wg.awaitAsync().isDone(), "zero: returns at once");
        wg.add(2);
        Awaitable<Void> round1 = wg.awaitAsync();
        wg.done();
        assertFalse(round1.isDone());
        wg.done();
        assertTrue(round1.isDone());
        wg.add(1);
        Awaitable<Void> round2 = wg.awaitAsync();
        assertFalse(round2.isDone(), "a new round");
        wg.add(1);
        wg.add(-1);
        assertFalse(round2.isDone());
        wg.done();
        assertTrue(round2.isDone());
        assertEquals(0, wg.getCount());
    }

    @Test
    void doneBelowZeroIsAnErrorAndChangesNothing() {
        WaitGroup wg = new WaitGroup();
        IllegalStateException e = assertThrows(IllegalStateException.class, wg::done);
        assertTrue(e.getMessage().contains("below zero"), e.getMessage());
        wg.add(1);
        assertThrows(IllegalStateException.class, () -> wg.add(-2));
        assertEquals(1, wg.getCount());
        wg.add(0);
        assertEquals(1, wg.getCount());
    }

    @Test
    void waitGroupTracksVirtualThreadWork() throws Exception {
        WaitGroup wg = new WaitGroup();
        int[] results = new int[100];
        for (int i = 0; i < 100; i++) {
            int n = i;
            wg.add(1);
            Task.startVirtual(() -> {
                try {
                    results[n] = n * n;
                    return null;
                } finally {
                    wg.done();
                }
            });
        }
        wg.awaitAsync().join(WAIT);
        for (int i = 0; i < 100; i++) {
            assertEquals(i * i, results[i]);
        }
    }
}
