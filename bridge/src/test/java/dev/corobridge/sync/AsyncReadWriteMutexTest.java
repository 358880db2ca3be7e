package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.outcomeOf;
import static dev.corobridge.sync.SyncTestSupport.valueOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Task;
import dev.corobridge.bridge.TaskTimeoutException;
import dev.corobridge.sync.AsyncReadWriteMutex.ReadLock;
import dev.corobridge.sync.AsyncReadWriteMutex.WriteLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The Java face of {@link AsyncReadWriteMutex}: many readers or one writer, writer preference and
 * queue order, idempotent handles, downgrade, and every exit of a wait — granted, cancelled before,
 * racing and after the grant, timed out.
 */
class AsyncReadWriteMutexTest {

    @Test
    void readersShareTheLockAndAWriterHoldsItAlone() {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        ReadLock a = rw.readLockAsync().resultNow();
        ReadLock b = rw.tryReadLock();
        assertNotNull(b, "a second reader shares the lock");
        assertEquals(2, rw.getReaders());
        assertNull(rw.tryWriteLock(), "no writer while readers hold it");
        assertTrue(a.unlock());
        assertTrue(b.unlock());
        assertFalse(rw.isLocked());

        WriteLock w = rw.writeLockAsync().resultNow();
        assertTrue(rw.isWriteLocked());
        assertNull(rw.tryReadLock(), "no reader while the writer holds it");
        assertNull(rw.tryWriteLock(), "no second writer");
        w.close();
    }

    @Test
    void aWaitingWriterBlocksNewReaders() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        ReadLock r1 = rw.readLockAsync().resultNow();
        Awaitable<WriteLock> w = rw.writeLockAsync();
        assertFalse(w.isDone(), "a reader holds the lock");
        assertNull(rw.tryReadLock(), "a new reader does not barge ahead of the waiting writer");
        Awaitable<ReadLock> r2 = rw.readLockAsync();
        assertFalse(r2.isDone(), "a new reader queues behind the waiting writer");
        assertEquals(1, rw.getQueuedWriters());
        assertEquals(1, rw.getQueuedReaders());

        r1.unlock();
        WriteLock held = valueOf(w);
        assertTrue(rw.isWriteLocked());
        assertFalse(r2.isDone());
        held.unlock();
        assertTrue(valueOf(r2).isHeld());
        assertEquals(1, rw.getReaders());
        assertFalse(rw.hasWaiters());
    }

    @Test
    void writersAreServedInFifoOrderAndReadersQueuedBehindAWriterGoTogetherAfterIt() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock first = rw.tryWriteLock();
        assertNotNull(first);
        List<String> order = new CopyOnWriteArrayList<>();
        Awaitable<WriteLock> w1 = watch(rw.writeLockAsync(), "W1", order);
        Awaitable<ReadLock> r1 = watch(rw.readLockAsync(), "R1", order);
        Awaitable<ReadLock> r2 = watch(rw.readLockAsync(), "R2", order);
        Awaitable<WriteLock> w2 = watch(rw.writeLockAsync(), "W2", order);
        Awaitable<ReadLock> r3 = watch(rw.readLockAsync(), "R3", order);
        assertEquals(2, rw.getQueuedWriters());
        assertEquals(3, rw.getQueuedReaders());

        first.unlock();
        assertEquals(List.of("W1"), order);
        w1.resultNow().unlock();
        assertEquals(List.of("W1", "R1", "R2"), order, "the readers before W2 are granted together");
        assertEquals(2, rw.getReaders());
        r1.resultNow().unlock();
        assertEquals(List.of("W1", "R1", "R2"), order, "W2 waits for every reader");
        r2.resultNow().unlock();
        assertEquals(List.of("W1", "R1", "R2", "W2"), order);
        w2.resultNow().unlock();
        assertEquals(List.of("W1", "R1", "R2", "W2", "R3"), order);
        r3.resultNow().unlock();
        assertFalse(rw.isLocked());
        assertFalse(rw.hasWaiters());
        assertNotNull(rw.tryWriteLock(), "the fast path works again once the queue is empty");
    }

    @Test
    void releasingTwiceIsANoOpAndNeverReleasesAnotherHolder() {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        ReadLock a = rw.tryReadLock();
        ReadLock b = rw.tryReadLock();
        assertTrue(a.unlock());
        assertFalse(a.unlock(), "second release: false");
        a.close();
        assertEquals(1, rw.getReaders(), "b still holds its read lock");
        assertTrue(b.isHeld());
        assertFalse(a.isHeld());
        b.close();
        WriteLock w = rw.tryWriteLock();
        w.close();
        assertFalse(w.unlock());
        assertFalse(rw.isLocked());
        assertNotNull(rw.tryWriteLock(), "still consistent");
    }

    @Test
    void downgradeKeepsWritersOutAndLetsTheReadersAtTheHeadIn() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock w = rw.tryWriteLock();
        Awaitable<ReadLock> r1 = rw.readLockAsync();
        Awaitable<WriteLock> w2 = rw.writeLockAsync();
        Awaitable<ReadLock> r2 = rw.readLockAsync();

        ReadLock mine = w.downgrade();
        assertFalse(w.isHeld());
        assertTrue(mine.isHeld());
        assertFalse(rw.isWriteLocked());
        assertTrue(r1.isDone(), "the reader queued before the next writer joins the downgraded holder");
        assertEquals(2, rw.getReaders());
        assertFalse(w2.isDone(), "no writer got in");
        assertFalse(r2.isDone(), "the reader behind the queued writer still waits");
        assertThrows(IllegalStateException.class, w::downgrade, "a released write lock cannot be downgraded");
        w.close(); // after a downgrade: no-op
        assertEquals(2, rw.getReaders());

        mine.unlock();
        r1.resultNow().unlock();
        valueOf(w2).unlock();
        valueOf(r2).unlock();
        assertFalse(rw.isLocked());
    }

    @Test
    void uncontendedDowngradeIsAtomicToo() {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock w = rw.tryWriteLock();
        ReadLock r = w.downgrade();
        assertEquals(1, rw.getReaders());
        assertFalse(rw.isWriteLocked());
        assertNull(rw.tryWriteLock());
        ReadLock other = rw.tryReadLock();
        assertNotNull(other, "readers may still join");
        other.close();
        r.close();
        assertFalse(rw.isLocked());
    }

    @Test
    void aWaitCancelledBeforeItsGrantNeverHoldsTheLock() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock w = rw.tryWriteLock();
        Awaitable<ReadLock> r = rw.readLockAsync();
        Awaitable<WriteLock> w2 = rw.writeLockAsync();
        assertTrue(r.cancel());
        assertTrue(w2.cancel());
        assertFalse(r.cancel(), "decided once");
        assertInstanceOf(Outcome.Cancelled.class, r.outcomeOrNull());
        assertInstanceOf(Outcome.Cancelled.class, w2.outcomeOrNull());
        assertThrows(CancellationException.class, () -> valueOf(r));
        assertFalse(rw.hasWaiters(), "withdrawn from the queue");
        assertEquals(0, rw.getQueuedReaders() + rw.getQueuedWriters());
        w.unlock();
        assertFalse(rw.isLocked(), "nobody was granted the lock");
    }

    @Test
    void aWaitCancelledAfterItsGrantHoldsTheLock() {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock w = rw.tryWriteLock();
        Awaitable<WriteLock> w2 = rw.writeLockAsync();
        w.unlock();
        assertFalse(w2.cancel(), "granted first: cancel() returns false");
        WriteLock held = w2.resultNow();
        assertTrue(rw.isWriteLocked(), "and the caller holds the lock");
        held.unlock();
        assertFalse(rw.isLocked());
    }

    /**
     * Readers R1 and R2 are granted together; R1's callback (run by the grant, before R2 is
     * delivered) cancels R2: R2's cancel() wins, and the read hold granted to it is released again.
     */
    @Test
    void aCancelRacingTheGrantWinsAndTheGrantIsPassedOn() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock w = rw.tryWriteLock();
        Awaitable<ReadLock> r1 = rw.readLockAsync();
        Awaitable<ReadLock> r2 = rw.readLockAsync();
        Awaitable<WriteLock> w2 = rw.writeLockAsync();
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicReference<Integer> readersAtCancel = new AtomicReference<>();
        r1.onComplete(o -> {
            readersAtCancel.set(rw.getReaders()); // both granted: the state counts R2 already
            cancelled.set(r2.cancel());
        });
        w.unlock();
        assertEquals(2, readersAtCancel.get());
        assertTrue(cancelled.get(), "the cancel decided before the grant reached R2");
        assertInstanceOf(Outcome.Cancelled.class, r2.outcomeOrNull());
        assertEquals(1, rw.getReaders(), "R2's hold was released: only R1 reads");
        r1.resultNow().unlock();
        assertTrue(valueOf(w2).isHeld(), "the lock passed on to the writer");
        w2.resultNow().unlock();
        assertFalse(rw.isLocked());
    }

    @Test
    void withdrawingTheWriterAtTheHeadLetsTheReadersBehindItIn() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        ReadLock r0 = rw.tryReadLock();
        Awaitable<WriteLock> w = rw.writeLockAsync();
        Awaitable<ReadLock> r1 = rw.readLockAsync();
        Awaitable<ReadLock> r2 = rw.readLockAsync();
        assertFalse(r1.isDone());
        assertTrue(w.cancel());
        assertTrue(r1.isDone() && r2.isDone(), "no lost wake-up: the readers no longer wait for anyone");
        assertEquals(3, rw.getReaders());
        assertFalse(rw.hasWaiters());
        r0.close();
        r1.resultNow().close();
        r2.resultNow().close();
        assertFalse(rw.isLocked());
    }

    @Test
    void withdrawingAWaiterInTheMiddleKeepsTheQueueIntact() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock w = rw.tryWriteLock();
        Awaitable<WriteLock> a = rw.writeLockAsync();
        Awaitable<WriteLock> b = rw.writeLockAsync();
        Awaitable<WriteLock> c = rw.writeLockAsync();
        assertTrue(b.cancel());
        assertEquals(2, rw.getQueuedWriters());
        w.unlock();
        valueOf(a).unlock();
        assertTrue(b.outcomeOrNull().isCancelled(), "the withdrawn writer was skipped");
        valueOf(c).unlock();
        assertFalse(rw.isLocked());
        assertFalse(rw.hasWaiters());
    }

    @Test
    void aTimedOutWaitIsWithdrawnAndNeverTakesTheLock() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        ReadLock r = rw.tryReadLock();
        Task<WriteLock> limited = Task.from(rw.writeLockAsync()).withTimeout(Duration.ofMillis(20));
        assertInstanceOf(TaskTimeoutException.class, outcomeOf(limited).errorOrNull());
        assertFalse(rw.hasWaiters(), "the timed-out writer left the queue");
        ReadLock other = rw.tryReadLock();
        assertNotNull(other, "and no longer blocks readers");
        other.close();
        r.close();
        assertFalse(rw.isLocked());
    }

    @Test
    void aTimeoutAfterTheGrantKeepsTheLock() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        Task<WriteLock> limited = Task.from(rw.writeLockAsync()).withTimeout(Duration.ofMillis(1));
        WriteLock w = valueOf(limited);
        assertTrue(w.isHeld());
        assertTrue(rw.isWriteLocked());
        w.close();
        assertFalse(rw.isLocked());
    }

    @Test
    void aBoundedJoinThatTimesOutLeavesTheWaitToCancel() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock w = rw.tryWriteLock();
        Awaitable<ReadLock> r = rw.readLockAsync();
        assertThrows(TimeoutException.class, () -> r.join(Duration.ofMillis(10)));
        assertTrue(r.cancel(), "still pending after the bounded join: withdrawn");
        w.close();
        assertFalse(rw.isLocked());
    }

    @Test
    void aWaitCompletesOnTheReleasingThread() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock w = rw.tryWriteLock();
        Awaitable<ReadLock> r = rw.readLockAsync();
        AtomicReference<String> thread = new AtomicReference<>();
        r.onComplete(o -> thread.set(Thread.currentThread().getName()));
        Thread releaser = new Thread(w::close, "releaser");
        releaser.start();
        releaser.join(WAIT);
        assertEquals("releaser", thread.get());
        valueOf(r).close();
    }

    @Test
    void introspectionAndToString() {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        assertEquals("AsyncReadWriteMutex[unlocked, queued readers=0, writers=0]", rw.toString());
        ReadLock r = rw.tryReadLock();
        Awaitable<WriteLock> w = rw.writeLockAsync();
        Awaitable<ReadLock> r2 = rw.readLockAsync();
        assertEquals("AsyncReadWriteMutex[1 readers, queued readers=1, writers=1]", rw.toString());
        assertTrue(rw.hasWaiters());
        assertTrue(rw.isLocked());
        assertFalse(rw.isWriteLocked());
        assertTrue(w.toString().contains("write lock of") && w.toString().contains("pending"), w.toString());
        r.close();
        assertEquals("AsyncReadWriteMutex[write-locked, queued readers=1, writers=0]", rw.toString());
        assertSame(rw, w.resultNow().getMutex());
        w.resultNow().close();
        r2.resultNow().close();
        assertTrue(r2.resultNow().toString().startsWith("ReadLock[released]"));
    }

    @Test
    void manyReadersQueuedBehindOneWriterAreGrantedTogether() throws Exception {
        AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
        WriteLock w = rw.tryWriteLock();
        List<Awaitable<ReadLock>> readers = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            readers.add(rw.readLockAsync());
        }
        w.close();
        assertEquals(100, rw.getReaders());
        for (Awaitable<ReadLock> r : readers) {
            valueOf(r).close();
        }
        assertFalse(rw.isLocked());
    }

    private static <H> Awaitable<H> watch(Awaitable<H> wait, String name, List<String> order) {
        assertFalse(wait.isDone(), name + " must wait");
        wait.onComplete(o -> order.add(name));
        return wait;
    }
}
