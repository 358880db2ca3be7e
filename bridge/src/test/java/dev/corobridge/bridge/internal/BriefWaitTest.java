package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Promise;
import dev.corobridge.sync.AsyncChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The brief wait of a virtual thread in a channel operation's {@code join()}: every exit of the
 * join still behaves as before (hand-over during the brief wait, a wait that lasts and so parks,
 * interrupt), and a wait that lasts ends parked, not spinning.
 */
class BriefWaitTest {

    private static final long BOUND_SECONDS = 10;

    @Test
    void aPlatformThreadDoesNotWait() {
        Promise<String> p = new Promise<>();
        assertFalse(BriefWait.onVirtualThread(p));
        p.complete("v");
        assertTrue(BriefWait.onVirtualThread(p));
    }

    @Test
    void aChannelWaitThatLastsEndsParkedAndStillGetsTheElement() throws Exception {
        AsyncChannel<String> channel = AsyncChannel.rendezvous();
        CompletableFuture<Object> received = new CompletableFuture<>();
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                received.complete(channel.receiveAsync().join());
            } catch (Throwable e) {
                received.complete(e);
            }
        });
        awaitState(t, Thread.State.WAITING);
        assertTrue(channel.trySend("x"), "the receiver is queued, so a send completes at once");
        assertEquals("x", received.get(BOUND_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void anInterruptIsNotConsumedByTheBriefWait() throws Exception {
        AsyncChannel<String> channel = AsyncChannel.rendezvous();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Awaitable<String>> receive = new AtomicReference<>();
        Thread t = Thread.ofVirtual().unstarted(() -> {
            receive.set(channel.receiveAsync());
            Thread.currentThread().interrupt();
            try {
                receive.get().join();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        t.start();
        assertTrue(t.join(Duration.ofSeconds(BOUND_SECONDS)));
        assertInstanceOf(InterruptedException.class, thrown.get());
        assertFalse(receive.get().isDone(), "the receive is still queued: the caller decides to cancel it");
        assertTrue(receive.get().cancel());
        assertFalse(channel.trySend("x"), "no receiver left");
    }

    @Test
    void virtualThreadPingPongHandsOverEveryElement() throws Exception {
        int trips = 20_000;
        AsyncChannel<Integer> ping = AsyncChannel.rendezvous();
        AsyncChannel<Integer> pong = AsyncChannel.rendezvous();
        Thread echo = Thread.ofVirtual().start(() -> {
            try {
                for (var e = ping.nextAsync().join(); e.hasValue(); e = ping.nextAsync().join()) {
                    pong.sendAsync(e.value() + 1).join();
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        CompletableFuture<Long> sum = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                long s = 0;
                for (int i = 0; i < trips; i++) {
                    ping.sendAsync(i).join();
                    s += pong.receiveAsync().join();
                }
                sum.complete(s);
            } catch (Throwable e) {
                sum.completeExceptionally(e);
            }
        });
        long expected = (long) trips * (trips - 1) / 2 + trips;
        assertEquals(expected, sum.get(60, TimeUnit.SECONDS));
        ping.close();
        assertTrue(echo.join(Duration.ofSeconds(BOUND_SECONDS)));
    }

    /** Polls (bounded) until {@code t} is in {@code state}. */
    /** Waits, bounded, until {@code t} is in {@code state} (also for the other tests of this package). */
    static void awaitState(Thread t, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (t.getState() != state) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("still " + t.getState() + ", never " + state);
            }
            Thread.sleep(1); // a poll interval, not synchronisation: the loop re-checks the state
        }
    }
}
