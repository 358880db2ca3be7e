package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Exactly-once completion under at least 10^5 random interleavings: in each round three threads
 * race complete / fail / cancel / timeout / shutdown and callback registrations (some withdrawn)
 * on one promise. Exactly one settle call wins; every kept callback runs exactly once and sees the
 * winner's outcome; withdrawn ones run at most once.
 */
class PromiseRaceStressTest {

    private static final int ROUNDS = 100_000;
    private static final int THREADS = 3;

    @Test
    void exactlyOnceUnderRaces() throws Exception {
        AtomicReference<Promise<Integer>> current = new AtomicReference<>();
        AtomicInteger winners = new AtomicInteger();
        AtomicInteger[] calls = new AtomicInteger[THREADS * 2];
        AtomicReference<String> failure = new AtomicReference<>();
        for (int i = 0; i < calls.length; i++) {
            calls[i] = new AtomicInteger();
        }
        @SuppressWarnings("unchecked")
        AtomicReference<Outcome<Integer>>[] seen = new AtomicReference[THREADS * 2];
        for (int i = 0; i < seen.length; i++) {
            seen[i] = new AtomicReference<>();
        }
        boolean[] withdrawn = new boolean[THREADS * 2];
        CyclicBarrier start = new CyclicBarrier(THREADS, () -> {
            current.set(new Promise<>());
            winners.set(0);
            for (int i = 0; i < calls.length; i++) {
                calls[i].set(0);
                seen[i].set(null);
                withdrawn[i] = false;
            }
        });
        CyclicBarrier end = new CyclicBarrier(THREADS, () -> {
            Promise<Integer> p = current.get();
            Outcome<Integer> o = p.outcomeOrNull();
            if (winners.get() != 1 || o == null) {
                failure.compareAndSet(null, "winners=" + winners.get() + " outcome=" + o);
            }
            for (int i = 0; i < calls.length; i++) {
                int c = calls[i].get();
                if (withdrawn[i] ? c > 1 : c != 1) {
                    failure.compareAndSet(null, "callback " + i + " ran " + c + " times (withdrawn=" + withdrawn[i] + ")");
                }
                if (c == 1 && seen[i].get() != o) {
                    failure.compareAndSet(null, "callback " + i + " saw " + seen[i].get() + " not " + o);
                }
            }
        });
        CountDownLatch done = new CountDownLatch(THREADS);
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            Thread th = new Thread(() -> {
                SplittableRandom rnd = new SplittableRandom(1000 + id);
                try {
                    for (int r = 0; r < ROUNDS; r++) {
                        start.await(30, TimeUnit.SECONDS);
                        Promise<Integer> p = current.get();
                        for (int k = 0; k < 2; k++) {
                            int slot = id * 2 + k;
                            if (rnd.nextBoolean()) {
                                register(p, slot, calls, seen, withdrawn, rnd);
                            } else {
                                if (settle(p, rnd, id)) {
                                    winners.incrementAndGet();
                                }
                                register(p, slot, calls, seen, withdrawn, rnd);
                            }
                        }
                        if (id == 0 && settle(p, rnd, id)) { // at least one settle attempt per round
                            winners.incrementAndGet();
                        }
                        end.await(30, TimeUnit.SECONDS);
                    }
                } catch (Exception e) {
                    failure.compareAndSet(null, e.toString());
                } finally {
                    done.countDown();
                }
            });
            th.start();
        }
        assertTrue(done.await(300, TimeUnit.SECONDS), "stress rounds did not finish");
        assertEquals(null, failure.get());
    }

    private static void register(Promise<Integer> p, int slot, AtomicInteger[] calls,
                                 AtomicReference<Outcome<Integer>>[] seen, boolean[] withdrawn, SplittableRandom rnd) {
        Registration r = p.onComplete(o -> {
            seen[slot].set(o);
            calls[slot].incrementAndGet();
        });
        if (rnd.nextInt(4) == 0) {
            withdrawn[slot] = true;
            r.dispose();
        }
    }

    private static boolean settle(Promise<Integer> p, SplittableRandom rnd, int id) {
        return switch (rnd.nextInt(5)) {
            case 0 -> p.complete(id);
            case 1 -> p.fail(new IllegalStateException("t" + id));
            case 2 -> p.cancel();
            case 3 -> p.fail(new TaskTimeoutException(Duration.ofMillis(id)));
            default -> p.cancel(new ContextShutdownException("ctx" + id));
        };
    }
}
