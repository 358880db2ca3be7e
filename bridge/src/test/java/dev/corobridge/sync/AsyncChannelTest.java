package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.original;
import static dev.corobridge.sync.SyncTestSupport.outcomeOf;
import static dev.corobridge.sync.SyncTestSupport.valueOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Task;
import dev.corobridge.bridge.TaskTimeoutException;
import dev.corobridge.stream.Next;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import kotlinx.coroutines.channels.ClosedReceiveChannelException;
import kotlinx.coroutines.channels.ClosedSendChannelException;
import org.junit.jupiter.api.Test;

/** The Java face of {@link AsyncChannel}: capacities, close and cancel, the end as a value, cancellation. */
class AsyncChannelTest {

    @Test
    void rendezvousSendWaitsForAReceiverAndViceVersa() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<Void> sent = ch.sendAsync("a");
        assertFalse(sent.isDone(), "no receiver yet");
        assertEquals("a", valueOf(ch.receiveAsync()));
        assertTrue(sent.isDone(), "the receive completed the waiting send");
        Awaitable<String> received = ch.receiveAsync();
        assertFalse(received.isDone(), "nothing sent yet");
        assertTrue(ch.sendAsync("b").isDone(), "a waiting receiver takes it at once");
        assertEquals("b", valueOf(received));
        assertFalse(ch.trySend("c"), "no receiver waiting: trySend refuses");
        assertNull(ch.tryReceive());
    }

    @Test
    void boundedBuffersUpToItsCapacityInOrder() throws Exception {
        AsyncChannel<Integer> ch = AsyncChannel.bounded(2);
        assertTrue(ch.sendAsync(1).isDone());
        assertTrue(ch.trySend(2));
        assertFalse(ch.trySend(3));
        Awaitable<Void> third = ch.sendAsync(3);
        assertFalse(third.isDone(), "full: send waits");
        assertEquals(1, ch.tryReceive());
        assertTrue(third.isDone(), "room made: the waiting send completed");
        assertEquals(2, valueOf(ch.receiveAsync()));
        assertEquals(3, valueOf(ch.receiveAsync()));
        assertEquals(2, ch.getCapacity());
    }

    @Test
    void unboundedSendNeverWaits() throws Exception {
        AsyncChannel<Integer> ch = AsyncChannel.unbounded();
        for (int i = 0; i < 10_000; i++) {
            assertTrue(ch.sendAsync(i).isDone());
        }
        for (int i = 0; i < 10_000; i++) {
            assertEquals(i, ch.tryReceive());
        }
        assertTrue(ch.isEmpty());
    }

    @Test
    void closeLetsReceiversDrainThenSeeTheEnd() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.bounded(4);
        ch.sendAsync("x");
        ch.sendAsync("y");
        assertTrue(ch.close());
        assertFalse(ch.close(), "closed once");
        assertTrue(ch.isClosedForSend());
        assertFalse(ch.isClosedForReceive(), "still buffered");
        assertInstanceOf(ClosedSendChannelException.class, outcomeOf(ch.sendAsync("z")).errorOrNull());
        assertThrows(ClosedSendChannelException.class, () -> ch.trySend("z"));
        List<String> got = new ArrayList<>();
        for (var e = ch.nextAsync().join(WAIT); e.hasValue(); e = ch.nextAsync().join(WAIT)) {
            got.add(e.value());
        }
        assertEquals(List.of("x", "y"), got);
        assertTrue(ch.isClosedForReceive());
        assertInstanceOf(ClosedReceiveChannelException.class, original(outcomeOf(ch.receiveAsync()).errorOrNull()));
        assertThrows(ClosedReceiveChannelException.class, ch::tryReceive);
        Next<String> end = valueOf(ch.nextAsync());
        assertTrue(end.isEnd());
        assertNull(((Next.End<String>) end).cancellation(), "a normal close");
        assertThrows(NoSuchElementException.class, end::value);
    }

    @Test
    void closeWithACauseEndsTheStreamWithThatFailure() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.unbounded();
        Awaitable<Next<String>> pending = ch.nextAsync();
        IllegalStateException boom = new IllegalStateException("source broke");
        ch.close(boom);
        Next<String> n = valueOf(pending);
        assertInstanceOf(Next.Failed.class, n);
        assertSame(boom, original(n.errorOrNull()));
        IllegalStateException thrown = assertThrows(IllegalStateException.class, n::hasValue);
        assertSame(boom, original(thrown), "hasValue() rethrows: a loop cannot mistake failure for the end");
        assertSame(boom, original(outcomeOf(ch.receiveAsync()).errorOrNull()));
    }

    /**
     * {@code cancel()} after {@code close()} (plain or with a cause) still cancels, as documented:
     * the sender the close kept waiting, and every later send and receive, end with a
     * {@code CancellationException}, and {@code nextAsync()} with the end that carries it. They ended
     * with the close's {@code Closed…ChannelException} (or cause), a failure, though the close's
     * promise to deliver the waiting sender's element was broken by the cancel.
     */
    @Test
    void cancelAfterCloseEndsEveryPendingAndLaterOperationAsCancelled() throws Exception {
        for (Throwable closeCause : new Throwable[] {null, new IllegalStateException("closed with a cause")}) {
            AsyncChannel<Integer> ch = AsyncChannel.bounded(1);
            assertTrue(ch.trySend(1));
            Awaitable<Void> pendingSend = ch.sendAsync(2);
            assertTrue(closeCause == null ? ch.close() : ch.close(closeCause));
            assertFalse(pendingSend.isDone(), "a close keeps the waiting sender: receivers drain it");
            assertTrue(ch.cancel(), "a channel that was only closed is still cancelled");
            assertFalse(ch.cancel());
            String as = "closed with " + closeCause;
            assertTrue(outcomeOf(pendingSend).isCancelled(), as + ": the waiting sender, whose element was discarded");
            assertTrue(outcomeOf(ch.receiveAsync()).isCancelled(), as + ": a later receive");
            assertTrue(outcomeOf(ch.sendAsync(3)).isCancelled(), as + ": a later send");
            Next<Integer> n = valueOf(ch.nextAsync());
            assertInstanceOf(Next.End.class, n, as);
            assertInstanceOf(CancellationException.class, ((Next.End<Integer>) n).cancellation(), as);
            assertThrows(CancellationException.class, () -> ch.trySend(4), as + ": trySend");
            assertTrue(ch.isClosedForReceive() && ch.isClosedForSend(), as);
        }
    }

    @Test
    void cancelDiscardsTheBufferAndEndsBothSides() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.bounded(1);
        ch.sendAsync("kept?");
        Awaitable<Void> blocked = ch.sendAsync("waiting");
        ch.cancel();
        assertTrue(outcomeOf(blocked).isCancelled(), "a waiting sender is cancelled");
        Next<String> n = valueOf(ch.nextAsync());
        assertInstanceOf(Next.End.class, n);
        assertInstanceOf(CancellationException.class, ((Next.End<String>) n).cancellation());
        assertTrue(outcomeOf(ch.receiveAsync()).isCancelled(), "the buffered element was discarded");
        assertTrue(ch.isClosedForReceive());
    }

    @Test
    void aWithdrawnReceiveTakesNothing() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<String> r = ch.receiveAsync();
        assertTrue(r.cancel());
        assertTrue(r.outcomeOrNull().isCancelled());
        assertFalse(ch.trySend("lost?"), "the withdrawn receiver is not waiting any more");
        Awaitable<String> r2 = ch.receiveAsync();
        ch.sendAsync("kept");
        assertEquals("kept", valueOf(r2));
    }

    @Test
    void cancellingAReceiveThatAlreadyGotItsElementKeepsTheElement() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<String> r = ch.receiveAsync();
        ch.sendAsync("mine");
        assertFalse(r.cancel(), "already matched: the element is the receive's value");
        assertEquals("mine", valueOf(r));
    }

    @Test
    void aWithdrawnSendIsNeverDelivered() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Awaitable<Void> s = ch.sendAsync("withdrawn");
        assertTrue(s.cancel());
        assertTrue(s.outcomeOrNull().isCancelled());
        assertNull(ch.tryReceive(), "the withdrawn element never arrives");
        ch.close();
        assertTrue(valueOf(ch.nextAsync()).isEnd());
    }

    @Test
    void aTimeoutOnAReceiveTaskNeverLosesAnElement() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.rendezvous();
        Task<String> limited = Task.from(ch.receiveAsync()).withTimeout(Duration.ofMillis(20));
        assertInstanceOf(TaskTimeoutException.class, outcomeOf(limited).errorOrNull());
        assertFalse(ch.trySend("after the timeout"), "the timed-out receive was withdrawn");

        Awaitable<String> r = ch.receiveAsync();
        Task<String> matched = Task.from(r);
        ch.sendAsync("handed over");
        assertFalse(matched.cancel(), "the receive already matched: the task keeps the element");
        assertEquals("handed over", valueOf(matched));
    }

    @Test
    void producersAndConsumersOnVirtualThreadsTransferEverythingOnce() throws Exception {
        AsyncChannel<Integer> ch = AsyncChannel.bounded(8);
        int producers = 4;
        int each = 2_000;
        try (ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Long>> consumers = new ArrayList<>();
            for (int c = 0; c < 3; c++) {
                consumers.add(vts.submit(() -> {
                    long sum = 0;
                    for (var e = ch.nextAsync().join(); e.hasValue(); e = ch.nextAsync().join()) {
                        sum += e.value();
                    }
                    return sum;
                }));
            }
            List<Future<?>> ps = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int base = p * each;
                ps.add(vts.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        ch.sendAsync(base + i).join();
                    }
                    return null;
                }));
            }
            for (Future<?> f : ps) {
                f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            ch.close();
            long total = 0;
            for (Future<Long> f : consumers) {
                total += f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
            long n = (long) producers * each;
            assertEquals(n * (n - 1) / 2, total);
        }
    }

    @Test
    void badInputIsAClearError() {
        assertThrows(IllegalArgumentException.class, () -> AsyncChannel.bounded(0));
        assertThrows(IllegalArgumentException.class, () -> AsyncChannel.bounded(-1));
        AsyncChannel<String> ch = AsyncChannel.unbounded();
        assertThrows(NullPointerException.class, () -> ch.sendAsync(null));
        assertThrows(NullPointerException.class, () -> ch.trySend(null));
        assertThrows(NullPointerException.class, () -> ch.close(null));
        assertEquals("AsyncChannel[unbounded]", ch.toString());
        assertTrue(Outcome.class.isInstance(ch.sendAsync("x").outcomeOrNull()));
    }
}
