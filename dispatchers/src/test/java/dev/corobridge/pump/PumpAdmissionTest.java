package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The admission word's contract: producers are refused once it is closed, {@link PumpAdmission#close()}
 * returns only when no admitted enqueue is still in progress, so a drain after it sees everything
 * admitted, and closing is idempotent, also when two threads close at once.
 */
class PumpAdmissionTest {

    @Test
    void anOpenWordAdmitsAndAClosedOneRefuses() {
        PumpAdmission a = new PumpAdmission();
        assertTrue(a.enter());
        a.exit();
        assertFalse(a.isClosed());
        a.close();
        assertTrue(a.isClosed());
        assertFalse(a.enter(), "closed: refused");
        assertFalse(a.enter(), "and refused again: a refusal leaves no count behind");
        assertEquals(1 << 30, a.get(), "closed, nobody mid-enqueue");
    }

    @Test
    void closeWaitsForTheProducerMidEnqueue() throws Exception {
        PumpAdmission a = new PumpAdmission();
        assertTrue(a.enter()); // this thread is mid-enqueue from now on
        AtomicBoolean closed = new AtomicBoolean();
        Thread closer = new Thread(() -> {
            a.close();
            closed.set(true);
        }, "closer");
        closer.start();
        while (!a.isClosed()) {
            Thread.onSpinWait(); // the closer has set the bit; it must now wait for us
        }
        assertFalse(a.enter(), "new producers are refused while the closer waits");
        assertFalse(closed.get(), "close() returned while a producer was mid-enqueue");
        a.exit();
        closer.join(WAIT.toMillis());
        assertFalse(closer.isAlive());
        assertTrue(closed.get());
    }

    @Test
    void closingTwiceAtOnceKeepsTheWordIntact() throws Exception {
        for (int round = 0; round < 200; round++) {
            PumpAdmission a = new PumpAdmission();
            CyclicBarrier start = new CyclicBarrier(2);
            List<Thread> closers = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Thread t = new Thread(() -> {
                    await(start);
                    a.close();
                }, "closer-" + i);
                t.start();
                closers.add(t);
            }
            for (Thread t : closers) {
                t.join(WAIT.toMillis());
                assertFalse(t.isAlive());
            }
            assertEquals(1 << 30, a.get(), "round " + round + ": the closed bit was set twice");
            assertFalse(a.enter());
        }
    }

    /**
     * Many producers race one close: every item a producer was admitted for is in the queue when
     * the closer drains it right after {@code close()}; nothing is offered after that drain.
     */
    @Test
    void aDrainAfterCloseSeesEveryAdmittedItem() throws Exception {
        int producers = 4;
        for (int round = 0; round < 100; round++) {
            PumpAdmission a = new PumpAdmission();
            ConcurrentLinkedQueue<Integer> queue = new ConcurrentLinkedQueue<>();
            AtomicInteger admitted = new AtomicInteger();
            CountDownLatch running = new CountDownLatch(producers);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                Thread t = new Thread(() -> {
                    running.countDown();
                    for (int i = 0; ; i++) {
                        if (!a.enter()) {
                            return;
                        }
                        try {
                            queue.offer(i);
                            admitted.incrementAndGet();
                        } finally {
                            a.exit();
                        }
                    }
                }, "producer-" + p);
                t.start();
                threads.add(t);
            }
            assertTrue(running.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            a.close();
            int drained = 0;
            while (queue.poll() != null) {
                drained++;
            }
            for (Thread t : threads) {
                t.join(WAIT.toMillis());
                assertFalse(t.isAlive());
            }
            assertEquals(admitted.get(), drained, "round " + round + ": an admitted item missed the drain");
            assertTrue(queue.isEmpty(), "round " + round + ": an item was offered after close() returned");
        }
    }

    private static void await(CyclicBarrier b) {
        try {
            b.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
