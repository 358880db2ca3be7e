package dev.corobridge.pump;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TimerQueueTest {

    @Test
    void pollsInDueThenSchedulingOrderAndSkipsCancelled() {
        TimerQueue q = new TimerQueue();
        SplittableRandom rnd = new SplittableRandom(7);
        List<PumpTimer> all = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            PumpTimer t = q.newTimer(rnd.nextInt(1000), () -> { }, null);
            q.add(t);
            all.add(t);
        }
        int cancelled = 0;
        for (PumpTimer t : all) {
            if (rnd.nextInt(3) == 0 && t.cancel()) {
                cancelled++;
            }
        }
        q.purgeIfMostlyCancelled();
        assertEquals(10_000 - cancelled, q.pendingCount());
        long lastDue = Long.MIN_VALUE;
        long lastSeq = -1;
        int polled = 0;
        PumpTimer t;
        while ((t = q.pollDue(1000)) != null) {
            assertTrue(t.due > lastDue || (t.due == lastDue && t.seq > lastSeq), "heap order");
            assertEquals(PumpTimer.State.FIRED, t.getState());
            lastDue = t.due;
            lastSeq = t.seq;
            polled++;
        }
        assertEquals(10_000 - cancelled, polled);
        assertEquals(0, q.pendingCount());
        assertEquals(Long.MAX_VALUE, q.nextDue());
    }

    @Test
    void notDueIsNotPolledAndPurgeKeepsOrder() {
        TimerQueue q = new TimerQueue();
        List<PumpTimer> ts = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            PumpTimer t = q.newTimer(100 + i, () -> { }, null);
            q.add(t);
            ts.add(t);
        }
        assertNull(q.pollDue(99));
        for (int i = 0; i < 150; i++) {
            ts.get(i).cancel();
        }
        q.purgeIfMostlyCancelled();
        assertEquals(50, q.pendingCount());
        assertSame(ts.get(150), q.pollDue(1_000));
        assertEquals(49, q.abandonAll().size());
        assertEquals(0, q.pendingCount());
    }

    @Test
    void cancelBeforeInsertionAndDiscardKeepCountsRight() {
        TimerQueue q = new TimerQueue();
        PumpTimer early = q.newTimer(5, () -> { }, null);
        assertTrue(early.cancel());
        q.add(early);
        PumpTimer refused = q.newTimer(5, () -> { }, null);
        q.discard(refused);
        assertEquals(0, q.pendingCount());
        assertNull(q.pollDue(10));
    }
}
