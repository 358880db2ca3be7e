package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.outcomeOf;
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
import dev.corobridge.bridge.TaskTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Java face of {@link AsyncMutex}: waits without blocking, FIFO, owners, cancellation. */
class AsyncMutexTest {

    @Test
    void uncontendedLockCompletesAtOnce() {
        AsyncMutex m = new AsyncMutex();
        Awaitable<Void> l = m.lockAsync();
        assertTrue(l.isDone());
        assertTrue(m.isLocked());
        m.unlock();
        assertFalse(m.isLocked());
    }

    @Test
    void waitersAreServedInFifoOrderAndEachHoldsTheLockAlone() throws Exception {
        AsyncMutex m = new AsyncMutex();
        m.lockAsync();
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Awaitable<Void>> waits = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int n = i;
            Awaitable<Void> w = m.lockAsync();
            assertFalse(w.isDone(), "the mutex is held: lock() must wait");
            w.onComplete(o -> order.add(n));
            waits.add(w);
        }
        for (int i = 0; i < 5; i++) {
            assertEquals(i, order.size());
            m.unlock(); // hands the lock to the next waiter
            assertTrue(waits.get(i).isDone());
            assertTrue(m.isLocked());
        }
        m.unlock();
        assertEquals(List.of(0, 1, 2, 3, 4), order);
        assertFalse(m.isLocked());
    }

    @Test
    void virtualThreadsAwaitTheLockAndExcludeEachOther() throws Exception {
        AsyncMutex m = new AsyncMutex();
        int[] counter = {0};
        try (ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                fs.add(vts.submit(() -> {
                    for (int i = 0; i < 500; i++) {
                        m.lockAsync().join();
                        try {
                            int c = counter[0];
                            Thread.yield();
                            counter[0] = c + 1;
                        } finally {
                            m.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        }
        assertEquals(16 * 500, counter[0]);
        assertFalse(m.isLocked());
    }

    @Test
    void ownerTokensMakeMisuseAClearError() {
        AsyncMutex m = new AsyncMutex();
        Object alice = "alice";
        Object bob = "bob";
        assertTrue(m.lockAsync(alice).isDone());
        assertTrue(m.holdsLock(alice));
        assertFalse(m.holdsLock(bob));
        IllegalStateException wrongOwner = assertThrows(IllegalStateException.class, () -> m.unlock(bob));
        assertTrue(wrongOwner.getMessage().contains("alice") && wrongOwner.getMessage().contains("bob"), wrongOwner.getMessage());
        Outcome<Void> reentrant = m.lockAsync(alice).outcomeOrNull();
        assertInstanceOf(Outcome.Failure.class, reentrant, "a reentrant lock(owner) fails at once");
        assertTrue(reentrant.errorOrNull().getMessage().contains("not reentrant"), reentrant.errorOrNull().getMessage());
        assertThrows(IllegalStateException.class, () -> m.tryLock(alice));
        assertTrue(m.isLocked(), "misuse changed nothing");
        m.unlock(alice);
        IllegalStateException notLocked = assertThrows(IllegalStateException.class, m::unlock);
        assertTrue(notLocked.getMessage().contains("not locked"), notLocked.getMessage());
        assertThrows(NullPointerException.class, () -> m.lockAsync(null));
    }

    @Test
    void cancellingAPendingLockWithdrawsItAndTheLockGoesToTheNext() throws Exception {
        AsyncMutex m = new AsyncMutex();
        m.lockAsync();
        Awaitable<Void> first = m.lockAsync();
        Awaitable<Void> second = m.lockAsync();
        assertTrue(first.cancel());
        assertInstanceOf(Outcome.Cancelled.class, first.outcomeOrNull());
        m.unlock();
        assertTrue(second.isDone(), "the cancelled waiter was skipped");
        assertInstanceOf(Outcome.Success.class, second.outcomeOrNull());
        assertFalse(first.cancel(), "a second cancel loses");
        m.unlock();
        assertFalse(m.isLocked());
    }

    @Test
    void cancellingAGrantedLockIsTooLate() {
        AsyncMutex m = new AsyncMutex();
        Awaitable<Void> held = m.lockAsync();
        assertFalse(held.cancel(), "the lock is held: nothing to withdraw");
        assertTrue(m.isLocked());
        m.unlock();
    }

    @Test
    void aTimedOutLockTaskLeavesTheMutexConsistent() throws Exception {
        AsyncMutex m = new AsyncMutex();
        m.lockAsync();
        Task<Void> limited = Task.from(m.lockAsync()).withTimeout(Duration.ofMillis(20));
        assertInstanceOf(TaskTimeoutException.class, outcomeOf(limited).errorOrNull());
        m.unlock();
        assertFalse(m.isLocked(), "the timed-out waiter never took the lock");
        assertTrue(m.tryLock());
    }

    @Test
    void blockingAwaitOnAPlatformThreadWorksAndInterruptStopsOnlyTheWait() throws Exception {
        AsyncMutex m = new AsyncMutex();
        m.lockAsync();
        Awaitable<Void> w = m.lockAsync();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, w::join);
        m.unlock();
        assertNull(valueOf(w), "the lock was still granted to the wait");
        m.unlock();
        assertFalse(m.isLocked());
    }
}
