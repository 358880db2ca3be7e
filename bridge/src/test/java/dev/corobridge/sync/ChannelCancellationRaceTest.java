package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.original;
import static dev.corobridge.sync.SyncTestSupport.outcomeOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import kotlinx.coroutines.channels.ClosedReceiveChannelException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Cancellation races on the Java face of {@link AsyncChannel}: every send and every receive gets a
 * cancel at a random moment while the other side runs on other threads. Elements are conserved:
 * each element whose send completed is received exactly once; no element of a withdrawn send is
 * ever received; a withdrawn receive took nothing.
 *
 * <p>The sends alone give the 10^5 cancel points per capacity ({@value #PRODUCERS} ×
 * {@value #SENDS_PER_PRODUCER}, one cancel each), so the count does not depend on scheduling. How
 * many receives the consumers make does: when the producers outrun them (threads descheduled on a
 * busy machine) the buffer stays full, more sends are withdrawn and fewer receives happen. An
 * earlier version needed sends and receives together to reach 10^5 with 2 × 30 000 sends, and
 * failed now and then with 99 365 cancel points although nothing was lost or duplicated.
 */
class ChannelCancellationRaceTest {

    private static final int PRODUCERS = 2;
    private static final int CONSUMERS = 2;
    private static final int SENDS_PER_PRODUCER = 50_000;

    @ParameterizedTest(name = "capacity {0}")
    @ValueSource(ints = {0, 3})
    void elementsAreNeitherLostNorDuplicated(int capacity) throws Exception {
        AsyncChannel<Integer> ch = capacity == 0 ? AsyncChannel.rendezvous() : AsyncChannel.bounded(capacity);
        int n = PRODUCERS * SENDS_PER_PRODUCER;
        AtomicIntegerArray sent = new AtomicIntegerArray(n);      // 1: send completed, 2: withdrawn
        AtomicIntegerArray received = new AtomicIntegerArray(n);  // times received
        AtomicLong cancelPoints = new AtomicLong();
        AtomicLong withdrawnReceives = new AtomicLong();
        AtomicLong withdrawnSends = new AtomicLong();
        AtomicReference<String> failure = new AtomicReference<>();
        ExecutorService pool = Executors.newFixedThreadPool(PRODUCERS + CONSUMERS);
        try {
            List<Future<?>> consumers = new ArrayList<>();
            for (int c = 0; c < CONSUMERS; c++) {
                long seed = 1000 + c;
                consumers.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    while (true) {
                        Awaitable<Integer> r = ch.receiveAsync();
                        spin(rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(150));
                        boolean withdrawn = r.cancel();
                        cancelPoints.incrementAndGet();
                        Outcome<Integer> o = outcomeOf(r);
                        if (withdrawn) {
                            withdrawnReceives.incrementAndGet();
                            if (!o.isCancelled()) {
                                failure.compareAndSet(null, "withdrawn receive ended " + o);
                            }
                        } else if (o instanceof Outcome.Success<Integer> s) {
                            received.incrementAndGet(s.value());
                        } else if (original(o.errorOrNull()) instanceof ClosedReceiveChannelException) {
                            return null;
                        } else {
                            failure.compareAndSet(null, "receive ended " + o);
                            return null;
                        }
                    }
                }));
            }
            List<Future<?>> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int base = p * SENDS_PER_PRODUCER;
                long seed = 2000 + p;
                producers.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    for (int i = 0; i < SENDS_PER_PRODUCER; i++) {
                        int x = base + i;
                        Awaitable<Void> s = ch.sendAsync(x);
                        spin(rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(150));
                        boolean withdrawn = s.cancel();
                        cancelPoints.incrementAndGet();
                        Outcome<Void> o = outcomeOf(s);
                        if (withdrawn) {
                            withdrawnSends.incrementAndGet();
                            sent.set(x, 2);
                            if (!o.isCancelled()) {
                                failure.compareAndSet(null, "withdrawn send ended " + o);
                            }
                        } else if (o.isSuccess()) {
                            sent.set(x, 1);
                        } else {
                            failure.compareAndSet(null, "send ended " + o);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : producers) {
                f.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
            }
            ch.close();
            for (Future<?> f : consumers) {
                f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertNull(failure.get());
        for (int x = 0; x < n; x++) {
            int expected = sent.get(x) == 1 ? 1 : 0;
            assertEquals(expected, received.get(x), "element " + x + " (send state " + sent.get(x) + ")");
        }
        assertTrue(cancelPoints.get() >= (long) n, "cancel points: " + cancelPoints); // every send had one
        assertTrue(n >= 100_000, "sends: " + n);
        assertTrue(withdrawnSends.get() > 0 && withdrawnReceives.get() > 0,
                "both sides were withdrawn sometimes: sends " + withdrawnSends + ", receives " + withdrawnReceives);
    }

    private static void spin(int n) {
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }
}
