package dev.corobridge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.stream.Next;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import kotlinx.coroutines.channels.ClosedReceiveChannelException;
import kotlinx.coroutines.channels.ClosedSendChannelException;
import org.junit.jupiter.api.Test;

/**
 * {@link ChannelCore} with recording waiters: every way a waiter leaves a queue (matched, closed,
 * cancelled, withdrawn), FIFO order across the buffer and the queues, and the buffer's growth.
 */
class ChannelCoreTest {

    /** A waiter that records its completions. */
    private static final class Recorder extends ChannelWaiter {
        final boolean sender;
        final List<Integer> kinds = new ArrayList<>();
        Object got;

        Recorder(boolean sender, Object element) {
            this.sender = sender;
            this.item = element;
        }

        @Override
        protected boolean isSender() {
            return sender;
        }

        @Override
        protected void complete(int kind) {
            kinds.add(kind);
            got = item;
        }
    }

    @Test
    void aQueuedReceiverGetsTheNextSentElementOnce() {
        ChannelCore<String> core = new ChannelCore<>(0);
        Recorder r = new Recorder(false, null);
        assertEquals(ChannelCore.WAIT, core.receive(r));
        assertEquals(ChannelCore.VALUE, core.offer("a"));
        assertEquals(List.of(ChannelCore.VALUE), r.kinds);
        assertEquals("a", r.got);
        assertFalse(core.withdraw(r), "matched: no longer withdrawable");
        assertEquals(ChannelCore.WAIT, core.offer("b"), "no receiver left: a rendezvous offer waits");
    }

    @Test
    void aQueuedSenderIsTakenByPollAndByAReceiveWaiter() {
        ChannelCore<String> core = new ChannelCore<>(0);
        Recorder s1 = new Recorder(true, "x");
        Recorder s2 = new Recorder(true, "y");
        assertEquals(ChannelCore.WAIT, core.send(s1));
        assertEquals(ChannelCore.WAIT, core.send(s2));
        assertFalse(core.isEmpty(), "waiting senders are elements");
        assertEquals("x", core.poll());
        Recorder r = new Recorder(false, null);
        assertEquals(ChannelCore.VALUE, core.receive(r));
        assertEquals("y", r.item);
        assertEquals(List.of(ChannelCore.VALUE), s1.kinds);
        assertEquals(List.of(ChannelCore.VALUE), s2.kinds);
        assertSame(ChannelCore.EMPTY, core.poll());
        assertTrue(core.isEmpty());
    }

    @Test
    void aWaitingSenderMovesIntoTheBufferSlotFreedByAReceive() {
        ChannelCore<Integer> core = new ChannelCore<>(2);
        assertEquals(ChannelCore.VALUE, core.offer(1));
        assertEquals(ChannelCore.VALUE, core.offer(2));
        assertEquals(ChannelCore.WAIT, core.offer(3));
        Recorder s = new Recorder(true, 3);
        assertEquals(ChannelCore.WAIT, core.send(s));
        assertEquals(1, core.poll());
        assertEquals(List.of(ChannelCore.VALUE), s.kinds, "its element is now buffered: the send completed");
        assertEquals(2, core.poll());
        assertEquals(3, core.poll());
        assertSame(ChannelCore.EMPTY, core.poll());
    }

    @Test
    void anUnboundedBufferGrowsAndKeepsTheOrderAcrossItsWrapAround() {
        ChannelCore<Integer> core = new ChannelCore<>(Integer.MAX_VALUE);
        List<Integer> got = new ArrayList<>();
        int next = 0;
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < round % 7 + 1; i++) {
                assertEquals(ChannelCore.VALUE, core.offer(next++));
            }
            for (int i = 0; i < round % 5; i++) {
                Object x = core.poll();
                if (x != ChannelCore.EMPTY) {
                    got.add((Integer) x);
                }
            }
        }
        for (Object x = core.poll(); x != ChannelCore.EMPTY; x = core.poll()) {
            got.add((Integer) x);
        }
        assertEquals(next, got.size());
        for (int i = 0; i < next; i++) {
            assertEquals(i, got.get(i));
        }
    }

    @Test
    void aWithdrawnWaiterInTheMiddleLeavesTheOthersInOrder() {
        ChannelCore<String> core = new ChannelCore<>(0);
        Recorder a = new Recorder(false, null);
        Recorder b = new Recorder(false, null);
        Recorder c = new Recorder(false, null);
        core.receive(a);
        core.receive(b);
        core.receive(c);
        assertTrue(core.withdraw(b));
        assertFalse(core.withdraw(b), "withdrawn once");
        assertTrue(b.kinds.isEmpty(), "the withdrawing party completes it, not the core");
        core.offer("1");
        core.offer("2");
        assertEquals("1", a.got);
        assertEquals("2", c.got);
        assertFalse(core.withdraw(new Recorder(false, null)), "never queued");
        // first and last withdrawn too
        Recorder d = new Recorder(true, "d");
        Recorder e = new Recorder(true, "e");
        Recorder f = new Recorder(true, "f");
        core.send(d);
        core.send(e);
        core.send(f);
        assertTrue(core.withdraw(d));
        assertTrue(core.withdraw(f));
        assertEquals("e", core.poll());
        assertSame(ChannelCore.EMPTY, core.poll());
        assertEquals(ChannelCore.WAIT, core.send(d), "the queue is usable again after its last waiter left");
        assertEquals("d", core.poll());
    }

    @Test
    void closeEndsWaitingReceiversButLetsWaitingSendersBeDrained() {
        ChannelCore<String> core = new ChannelCore<>(0);
        Recorder r = new Recorder(false, null);
        core.receive(r);
        assertTrue(core.close(null));
        assertFalse(core.close(new IllegalStateException()), "closed once");
        assertEquals(List.of(ChannelCore.CLOSED), r.kinds);
        assertNull(core.closeCause());
        assertInstanceOf(ClosedReceiveChannelException.class, core.receiveException());
        assertInstanceOf(ClosedSendChannelException.class, core.sendException());
        assertEquals(ChannelCore.CLOSED, core.offer("late"));

        ChannelCore<String> withSender = new ChannelCore<>(0);
        Recorder s = new Recorder(true, "sent before the close");
        withSender.send(s);
        withSender.close(null);
        assertFalse(withSender.isClosedForReceive());
        assertEquals("sent before the close", withSender.poll());
        assertEquals(List.of(ChannelCore.VALUE), s.kinds);
        assertSame(ChannelCore.ENDED, withSender.poll());
        assertTrue(withSender.isClosedForReceive());
        assertFalse(withSender.isEmpty(), "kotlinx's isEmpty: false once closed");
        assertEquals(ChannelCore.CLOSED, withSender.receive(new Recorder(false, null)));
    }

    @Test
    void closeWithACauseIsWhatEndedOperationsThrow() {
        ChannelCore<String> core = new ChannelCore<>(1);
        IllegalStateException boom = new IllegalStateException("boom");
        core.close(boom);
        assertSame(boom, core.sendException());
        assertSame(boom, core.receiveException());
        Next<String> end = core.end();
        assertInstanceOf(Next.Failed.class, end);
        assertSame(boom, end.errorOrNull());
        assertEquals(ChannelCore.CLOSED, core.send(new Recorder(true, "x")));
    }

    @Test
    void cancelDiscardsTheBufferAndEndsWaitingSendersAndReceivers() {
        ChannelCore<String> core = new ChannelCore<>(1);
        core.offer("buffered");
        Recorder s = new Recorder(true, "waiting");
        core.send(s);
        CancellationException cause = new CancellationException("stop");
        assertTrue(core.cancel(cause));
        assertFalse(core.cancel(new CancellationException("again")));
        assertEquals(List.of(ChannelCore.CLOSED), s.kinds);
        assertNull(s.got, "a sender's element is dropped from it when it ends");
        assertSame(ChannelCore.ENDED, core.poll(), "the buffer was discarded");
        assertSame(cause, core.sendException());
        assertInstanceOf(Next.End.class, core.end());

        ChannelCore<String> receiving = new ChannelCore<>(0);
        Recorder r = new Recorder(false, null);
        receiving.receive(r);
        receiving.cancel(cause);
        assertEquals(List.of(ChannelCore.CLOSED), r.kinds);
        assertSame(cause, receiving.receiveException());
    }

    /** A cancel after a close replaces the close's cause: what it ends, and what comes later, is cancelled. */
    @Test
    void cancelAfterACloseReplacesTheCloseCause() {
        for (Throwable closeCause : new Throwable[] {null, new IllegalStateException("closed")}) {
            ChannelCore<String> core = new ChannelCore<>(2);
            core.offer("x");
            core.close(closeCause);
            CancellationException cancel = new CancellationException();
            assertTrue(core.cancel(cancel));
            assertSame(cancel, core.closeCause());
            assertSame(cancel, core.sendException());
            assertSame(cancel, core.receiveException());
            assertSame(ChannelCore.ENDED, core.poll());
            assertFalse(core.cancel(new CancellationException()));
            assertSame(cancel, core.closeCause(), "a second cancel changes nothing");
        }
    }
}
