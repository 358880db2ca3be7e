package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class HopTraceTest {

    @Test
    void recordsContextAndThread() throws Exception {
        HopTrace trace = new HopTrace();
        trace.record("main", "start");
        Thread t = new Thread(() -> trace.record("worker", "step"), "worker-1");
        t.start();
        t.join();
        List<Hop> hops = trace.getHops();
        assertEquals(2, hops.size());
        assertEquals(Thread.currentThread().getName(), hops.get(0).thread());
        assertEquals("worker-1", hops.get(1).thread());
        assertEquals("worker", hops.get(1).context());
        assertTrue(trace.toString().contains("2. worker @ worker-1"), trace.toString());
    }

    @Test
    void keepsFirstAndLatestWhenFull() {
        HopTrace trace = new HopTrace(3);
        for (int i = 0; i < 10; i++) {
            trace.record("c", "step " + i);
        }
        List<Hop> hops = trace.getHops();
        assertEquals(List.of("step 0", "step 8", "step 9"), hops.stream().map(Hop::note).toList());
        assertEquals(7, trace.getDropped());
        assertTrue(trace.toString().contains("7 hops left out"));
    }

    @Test
    void aLongRunOfNotedAndRecordedHopsKeepsTheFirstAndTheLatestInOrderWhileSlotsAreReused() {
        HopTrace trace = new HopTrace(4);
        for (int i = 0; i < 50; i++) {
            if (i % 3 == 0) {
                trace.record("c", "step " + i);
            } else {
                trace.note("c", "step " + i);
            }
            if (i % 7 == 0) {
                trace.getHops(); // builds (caches) the hops of the slots that are reused later
            }
        }
        assertEquals(List.of("step 0", "step 47", "step 48", "step 49"), trace.getHops().stream().map(Hop::note).toList());
        assertEquals(46, trace.getDropped());
    }

    @Test
    void aNotedFirstHopReadsLikeARecordedOne() throws Exception {
        HopTrace trace = new HopTrace(3);
        java.time.Instant before = java.time.Instant.now();
        trace.note("ctx", "task");
        java.time.Instant after = java.time.Instant.now();
        Thread t = new Thread(() -> trace.note("worker", "second"), "worker-2");
        t.start();
        t.join();
        trace.record("c", "third");
        trace.note("c", "fourth");
        List<Hop> hops = trace.getHops();
        assertEquals(List.of("task", "third", "fourth"), hops.stream().map(Hop::note).toList());
        Hop first = hops.get(0);
        assertEquals("ctx", first.context());
        assertEquals(Thread.currentThread().getName(), first.thread());
        assertEquals(Thread.currentThread().threadId(), first.threadId());
        assertTrue(!first.at().isBefore(before) && !first.at().isAfter(after), first.at() + " not in [" + before + ", " + after + "]");
        assertEquals(1, trace.getDropped());
        assertTrue(trace.getHops().get(0) == first, "the first hop is built once");
        assertTrue(trace.toString().startsWith("  1. ctx @ "), trace.toString());
    }

    @Test
    void rejectsBadInput() {
        assertThrows(IllegalArgumentException.class, () -> new HopTrace(1));
        assertThrows(NullPointerException.class, () -> new HopTrace().record(null, "note"));
        assertThrows(NullPointerException.class, () -> new Hop(null, "t", 1, false, java.time.Instant.now(), ""));
    }

    @Test
    void concurrentRecordersLoseNothingWithinCapacity() throws Exception {
        HopTrace trace = new HopTrace(10_000);
        int threads = 8;
        int each = 1_000;
        CountDownLatch go = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            ts[i] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                for (int j = 0; j < each; j++) {
                    trace.record("c", "");
                }
            });
            ts[i].start();
        }
        go.countDown();
        for (Thread t : ts) {
            t.join();
        }
        assertEquals(threads * each, trace.getHops().size());
        assertEquals(0, trace.getDropped());
    }
}
