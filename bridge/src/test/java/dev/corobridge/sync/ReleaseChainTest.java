package dev.corobridge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Tasks;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A Java waiter's callback that releases what it was granted at once ({@code thenAccept(l -> l.close())}
 * with a future) makes the release grant the next waiter, whose callback releases, and so on: a
 * chain as long as the queue. Each link used to run nested in the one before, so a few hundred
 * waiters overflowed the stack; the overflow was caught as a callback failure in the middle of the
 * lock's release, and the lock stayed held with its waiters queued forever. Now completions that
 * nest deeper than a bound run after the outer callback returns, on the same thread, so a chain of
 * any length runs in bounded stack, as {@link CompletableFuture}'s dependents do.
 *
 * <p>Every chain runs on a thread with a 256 KiB stack, which the old code overflowed after about a
 * hundred links.
 */
class ReleaseChainTest {

    private static final int WAITERS = 20_000;

    @Test
    void aMutexWhoseWaitersReleaseInTheirCallbacksGrantsThemAll() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AtomicInteger granted = new AtomicInteger();
        long failuresBefore = Tasks.uncaughtFailures();
        onSmallStack(() -> {
            assertTrue(m.tryLock());
            for (int i = 0; i < WAITERS; i++) {
                m.lockAsync().onComplete(o -> {
                    granted.incrementAndGet();
                    m.unlock();
                });
            }
            m.unlock();
        });
        assertEquals(WAITERS, granted.get());
        assertFalse(m.isLocked(), m.toString());
        assertEquals(failuresBefore, Tasks.uncaughtFailures(), "no callback failed");
    }

    @Test
    void aSemaphoreWhoseWaitersReleaseInTheirCallbacksGrantsThemAll() throws Exception {
        AsyncSemaphore s = new AsyncSemaphore(1);
        AtomicInteger granted = new AtomicInteger();
        long failuresBefore = Tasks.uncaughtFailures();
        onSmallStack(() -> {
            assertTrue(s.tryAcquire());
            for (int i = 0; i < WAITERS; i++) {
                s.acquireAsync().onComplete(o -> {
                    granted.incrementAndGet();
                    s.release();
                });
            }
            s.release();
        });
        assertEquals(WAITERS, granted.get());
        assertEquals(1, s.getAvailablePermits(), s.toString());
        assertEquals(failuresBefore, Tasks.uncaughtFailures(), "no callback failed");
    }

    @Test
    void aReadWriteMutexWhoseWaitersReleaseInTheirCallbacksGrantsThemAll() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        AtomicInteger granted = new AtomicInteger();
        long failuresBefore = Tasks.uncaughtFailures();
        onSmallStack(() -> {
            AsyncReadWriteMutex.WriteLock first = rw.tryWriteLock();
            for (int i = 0; i < WAITERS; i++) {
                if (i % 3 == 0) {
                    rw.readLockAsync().onComplete(o -> {
                        granted.incrementAndGet();
                        ((Outcome.Success<AsyncReadWriteMutex.ReadLock>) o).value().close();
                    });
                } else {
                    rw.writeLockAsync().onComplete(o -> {
                        granted.incrementAndGet();
                        ((Outcome.Success<AsyncReadWriteMutex.WriteLock>) o).value().close();
                    });
                }
            }
            first.close();
        });
        assertEquals(WAITERS, granted.get());
        assertFalse(rw.isLocked(), rw.toString());
        assertEquals(failuresBefore, Tasks.uncaughtFailures(), "no callback failed");
    }

    @Test
    void receiversThatSendToTheNextInTheirCallbacksAllReceive() throws Exception {
        AsyncChannel<Integer> ch = AsyncChannel.rendezvous();
        List<Integer> received = new ArrayList<>();
        long failuresBefore = Tasks.uncaughtFailures();
        onSmallStack(() -> {
            for (int i = 0; i < WAITERS; i++) {
                ch.receiveAsync().onComplete(o -> {
                    int v = ((Outcome.Success<Integer>) o).value();
                    received.add(v);
                    ch.trySend(v + 1); // hands the next value to the next waiting receiver
                });
            }
            assertTrue(ch.trySend(0));
        });
        assertEquals(WAITERS, received.size());
        for (int i = 0; i < WAITERS; i++) {
            assertEquals(i, received.get(i));
        }
        assertEquals(failuresBefore, Tasks.uncaughtFailures(), "no callback failed");
    }

    @Test
    void promisesThatCompleteTheNextInTheirCallbacksAllComplete() throws Exception {
        List<Promise<Integer>> chain = new ArrayList<>();
        for (int i = 0; i <= WAITERS; i++) {
            chain.add(new Promise<>());
        }
        for (int i = 0; i < WAITERS; i++) {
            Promise<Integer> next = chain.get(i + 1);
            chain.get(i).onComplete(o -> next.complete(((Outcome.Success<Integer>) o).value() + 1));
        }
        long failuresBefore = Tasks.uncaughtFailures();
        onSmallStack(() -> chain.get(0).complete(0));
        assertEquals(new Outcome.Success<>(WAITERS), chain.get(WAITERS).outcomeOrNull());
        assertEquals(failuresBefore, Tasks.uncaughtFailures(), "no callback failed");
    }

    /** Runs {@code body} on a new thread with a 256 KiB stack and waits for it; rethrows its failure. */
    private static void onSmallStack(Runnable body) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread t = new Thread(null, () -> {
            try {
                body.run();
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        }, "small-stack", 256 * 1024);
        t.start();
        done.get(60, TimeUnit.SECONDS);
    }
}
