package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.outcomeOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.internal.OutcomeCell;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The Java face of {@link AsyncCondition}: release, signal, re-acquire; predicates; cancellation. */
class AsyncConditionTest {

    @Test
    void aWaitReleasesTheMutexAndCompletesHoldingItAgain() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        assertFalse(c.signal(), "nobody waits");
        m.lockAsync();
        Awaitable<Void> w = c.awaitAsync();
        assertFalse(m.isLocked(), "released while waiting");
        assertTrue(c.hasWaiters());
        m.lockAsync(); // someone else takes it and signals
        assertTrue(c.signal());
        assertFalse(w.isDone(), "signalled, but the mutex is still held by the signaller");
        m.unlock();
        assertTrue(w.isDone() && w.outcomeOrNull().isSuccess());
        assertTrue(m.isLocked(), "the waiter holds the mutex again");
        m.unlock();
    }

    @Test
    void waitingWithoutTheMutexIsAClearError() {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        IllegalStateException e = assertThrows(IllegalStateException.class, c::awaitAsync);
        assertTrue(e.getMessage().contains("holding its mutex"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> c.awaitUntilAsync(() -> true));
        m.lockAsync("alice");
        assertThrows(IllegalStateException.class, () -> c.awaitAsync("bob"));
        assertFalse(c.hasWaiters(), "the refused wait was not queued");
        m.unlock("alice");
        assertThrows(NullPointerException.class, () -> new AsyncCondition(null));
    }

    @Test
    void signalWakesTheLongestWaiterAndSignalAllTheRest() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        List<Integer> woken = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            int n = i;
            m.lockAsync();
            c.awaitAsync().onComplete(o -> {
                woken.add(n);
                m.unlock();
            });
        }
        assertTrue(c.signal());
        assertEquals(List.of(0), woken);
        assertEquals(3, c.signalAll());
        assertEquals(List.of(0, 1, 2, 3), woken);
        assertFalse(m.isLocked());
    }

    @Test
    void aWithdrawnWaitNeverTakesASignalAndEndsHoldingTheMutex() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        m.lockAsync();
        Awaitable<Void> quitter = c.awaitAsync();
        m.lockAsync();
        Awaitable<Void> stayer = c.awaitAsync();
        m.lockAsync(); // held by "us" while the quitter withdraws
        assertTrue(quitter.cancel());
        assertFalse(quitter.isDone(), "cancelled, but published only once the mutex is held again");
        assertTrue(c.signal(), "the signal goes to the remaining waiter");
        m.unlock(); // FIFO: the quitter re-acquires first, then the stayer
        assertTrue(quitter.outcomeOrNull().isCancelled());
        assertFalse(stayer.isDone());
        m.unlock(); // the quitter's finally
        assertTrue(stayer.outcomeOrNull().isSuccess());
        m.unlock();
        assertFalse(c.signal());
    }

    @Test
    void cancellingAfterTheSignalIsTooLateAndTheWaitCompletesNormally() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        m.lockAsync();
        Awaitable<Void> w = c.awaitAsync();
        assertTrue(c.signal());
        assertFalse(w.cancel(), "a signal chose it already: the signal is not wasted");
        assertTrue(outcomeOf(w).isSuccess());
        m.unlock();
    }

    @Test
    void whenTrueReevaluatesAfterEveryWakeUp() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        int[] value = {0};
        int[] evaluations = {0};
        m.lockAsync();
        Awaitable<Void> w = c.awaitUntilAsync(() -> {
            evaluations[0]++;
            return value[0] >= 2;
        });
        for (int i = 1; i <= 2; i++) {
            m.lockAsync();
            value[0] = i;
            c.signal();
            m.unlock();
        }
        assertTrue(w.isDone() && w.outcomeOrNull().isSuccess());
        assertEquals(3, evaluations[0]);
        assertTrue(m.isLocked());
        m.unlock();
        m.lockAsync();
        assertTrue(c.awaitUntilAsync(() -> true).isDone(), "already true: no wait, the mutex stays held");
        assertTrue(m.isLocked());
        IllegalArgumentException boom = new IllegalArgumentException("predicate broke");
        Outcome<Void> failed = c.awaitUntilAsync(() -> {
            throw boom;
        }).outcomeOrNull();
        assertSame(boom, failed.errorOrNull());
        assertTrue(m.isLocked(), "a failing predicate leaves the mutex held");
        m.unlock();
    }

    @Test
    void cancellingWhenTrueEndsItHoldingTheMutex() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        m.lockAsync();
        Awaitable<Void> w = c.awaitUntilAsync(() -> false);
        assertTrue(w.cancel());
        assertFalse(w.cancel());
        assertTrue(outcomeOf(w).isCancelled());
        assertTrue(m.isLocked());
        m.unlock();
        assertFalse(c.hasWaiters());
    }

    @Test
    void cancellingAWhenTrueWaitThatASignalChoseIsRefusedAndTheSignalIsUsed() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        boolean[] ready = {false};
        m.lockAsync();
        Awaitable<Void> a = c.awaitUntilAsync(() -> ready[0]);
        m.lockAsync();
        Awaitable<Void> b = c.awaitUntilAsync(() -> ready[0]);
        m.lockAsync(); // the producer
        ready[0] = true;
        assertTrue(c.signal(), "the signal chooses a, the longest waiter");
        assertFalse(a.cancel(), "a signal chose a first: its cancel is refused, the signal is not swallowed");
        assertFalse(a.isDone(), "published only once the mutex is held again");
        m.unlock();
        assertTrue(outcomeOf(a).isSuccess(), "a looked again holding the mutex and the predicate holds: " + a.outcomeOrNull());
        assertTrue(m.isLocked());
        m.unlock(); // a's finally
        assertFalse(b.isDone(), "one signal, one wake-up");
        assertTrue(c.signal());
        assertTrue(outcomeOf(b).isSuccess());
        m.unlock();
        assertFalse(m.isLocked());
        assertFalse(c.hasWaiters());
    }

    @Test
    void aRefusedCancelOfAWhenTrueWaitEndsItCancelledWhenThePredicateIsStillFalse() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        int[] evaluations = {0};
        m.lockAsync();
        Awaitable<Void> a = c.awaitUntilAsync(() -> ++evaluations[0] > 5);
        m.lockAsync();
        assertTrue(c.signal());
        CancellationException stop = new CancellationException("stop");
        assertFalse(((OutcomeCell<Void>) a).cancel(stop), "a signal chose it first");
        assertFalse(a.cancel(), "asked once already");
        m.unlock();
        Outcome<Void> o = outcomeOf(a);
        assertTrue(o.isCancelled(), "looked again, still false: it ends cancelled instead of waiting again: " + o);
        assertSame(stop, o.errorOrNull());
        assertEquals(2, evaluations[0], "evaluated when called and once after the signal");
        assertTrue(m.isLocked(), "ends holding the mutex");
        assertFalse(c.hasWaiters(), "not queued again");
        m.unlock();
        assertFalse(c.signal());
    }

    @Test
    void aWhenTrueWaitWhosePredicateThrowsAfterARefusedCancelFailsWithIt() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        IllegalStateException boom = new IllegalStateException("predicate broke");
        boolean[] signalled = {false};
        m.lockAsync();
        Awaitable<Void> a = c.awaitUntilAsync(() -> {
            if (signalled[0]) {
                throw boom;
            }
            return false;
        });
        m.lockAsync();
        signalled[0] = true;
        assertTrue(c.signal());
        assertFalse(a.cancel());
        m.unlock();
        assertSame(boom, outcomeOf(a).errorOrNull());
        assertTrue(m.isLocked());
        m.unlock();
    }

    @Test
    void aWaitWokenWhileAnotherHolderUsesItsOwnerTokenCompletesOnlyHoldingTheMutex() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        Object owner = "worker";
        assertTrue(m.lockAsync(owner).isDone());
        Awaitable<Void> w = c.awaitAsync(owner);
        assertTrue(m.lockAsync(owner).isDone(), "a second party that shares the token takes the free mutex");
        assertTrue(c.signal());
        assertFalse(w.isDone(), "woken while the other holder has the mutex: " + w.outcomeOrNull());
        m.unlock(owner); // the other party's finally: releases its own hold, not the waiter's
        assertTrue(outcomeOf(w).isSuccess(), "re-acquired after the other holder: " + w.outcomeOrNull());
        assertTrue(m.holdsLock(owner), "the waiter holds the mutex as its token");
        m.unlock(owner); // the waiter's finally
        assertFalse(m.isLocked());
    }

    @Test
    void aWhenTrueWaitWokenOrCancelledWhileItsTokenHoldsTheMutexEndsHoldingIt() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition c = new AsyncCondition(m);
        Object owner = "worker";
        boolean[] ready = {false};
        m.lockAsync(owner);
        Awaitable<Void> woken = c.awaitUntilAsync(owner, () -> ready[0]);
        m.lockAsync(owner);
        Awaitable<Void> withdrawn = c.awaitUntilAsync(owner, () -> ready[0]);
        m.lockAsync(owner); // the other holder sharing the token
        ready[0] = true;
        assertTrue(c.signal());
        assertTrue(withdrawn.cancel());
        assertFalse(woken.isDone() || withdrawn.isDone(), "neither completes before it holds the mutex");
        m.unlock(owner);
        assertTrue(outcomeOf(woken).isSuccess(), "" + woken.outcomeOrNull());
        assertFalse(withdrawn.isDone(), "FIFO: the withdrawn wait re-acquires next");
        m.unlock(owner);
        assertTrue(outcomeOf(withdrawn).isCancelled(), "" + withdrawn.outcomeOrNull());
        assertTrue(m.holdsLock(owner));
        m.unlock(owner);
        assertFalse(m.isLocked());
    }

    @Test
    void boundedBufferWithTwoConditionsOnVirtualThreads() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition notFull = new AsyncCondition(m);
        AsyncCondition notEmpty = new AsyncCondition(m);
        ArrayDeque<Integer> buffer = new ArrayDeque<>();
        int n = 2_000;
        try (ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> producer = vts.submit(() -> {
                for (int i = 0; i < n; i++) {
                    m.lockAsync().join();
                    try {
                        notFull.awaitUntilAsync(() -> buffer.size() < 4).join();
                        buffer.add(i);
                        notEmpty.signal();
                    } finally {
                        m.unlock();
                    }
                }
                return null;
            });
            Future<Long> consumer = vts.submit(() -> {
                long sum = 0;
                for (int i = 0; i < n; i++) {
                    m.lockAsync().join();
                    try {
                        notEmpty.awaitUntilAsync(() -> !buffer.isEmpty()).join();
                        sum += buffer.removeFirst();
                        notFull.signal();
                    } finally {
                        m.unlock();
                    }
                }
                return sum;
            });
            producer.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertEquals((long) n * (n - 1) / 2, consumer.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        }
        assertFalse(m.isLocked());
    }
}
