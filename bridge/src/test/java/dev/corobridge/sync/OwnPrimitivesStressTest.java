package dev.corobridge.sync;

import static dev.corobridge.sync.SyncTestSupport.WAIT;
import static dev.corobridge.sync.SyncTestSupport.outcomeOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Stress in place of Lincheck for the primitives we implement ourselves (event, latch, wait group,
 * condition): many rounds of random interleavings of waits, cancellations and wake-ups on three
 * threads, checking after each round that no wake-up was lost (every waiter that was not
 * withdrawn completed), none was doubled (every waiter's callback ran exactly once), and — for
 * the condition — that a withdrawn waiter never consumed a signal.
 */
class OwnPrimitivesStressTest {

    private static final int ROUNDS = 20_000;
    private static final int THREADS = 3;

    /** One waiter: its awaitable, whether cancel() withdrew it, and how often its callback ran. */
    private static final class Watched {
        final Awaitable<?> wait;
        final AtomicInteger callbacks = new AtomicInteger();
        volatile boolean withdrawn;

        Watched(Awaitable<?> wait) {
            this.wait = wait;
            wait.onComplete(o -> callbacks.incrementAndGet());
        }
    }

    /**
     * Runs {@code ROUNDS} rounds: {@code setUp} makes the primitive, then each thread runs
     * {@code step(thread, random)} (which waits, cancels, wakes) and the waiters it returns are
     * checked after the round: completed exactly once, withdrawn ones cancelled, others succeeded.
     */
    private static void rounds(Runnable setUp, Step step) throws Exception {
        List<List<Watched>> perThread = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            perThread.add(new ArrayList<>());
        }
        AtomicReference<String> failure = new AtomicReference<>();
        AtomicLong withdrawn = new AtomicLong();
        AtomicLong woken = new AtomicLong();
        CyclicBarrier start = new CyclicBarrier(THREADS, () -> {
            setUp.run();
            perThread.forEach(List::clear);
        });
        CyclicBarrier end = new CyclicBarrier(THREADS, () -> {
            for (List<Watched> ws : perThread) {
                for (Watched w : ws) {
                    Outcome<?> o = w.wait.outcomeOrNull();
                    if (o == null) {
                        failure.compareAndSet(null, "lost wake-up: " + w.wait + " still pending");
                    } else if (w.callbacks.get() != 1) {
                        failure.compareAndSet(null, "callback ran " + w.callbacks.get() + " times for " + w.wait);
                    } else if (w.withdrawn != o.isCancelled()) {
                        failure.compareAndSet(null, "withdrawn=" + w.withdrawn + " but outcome " + o);
                    } else if (w.withdrawn) {
                        withdrawn.incrementAndGet();
                    } else {
                        woken.incrementAndGet();
                    }
                }
            }
        });
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Void>> fs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int thread = t;
                Callable<Void> body = () -> {
                    SplittableRandom rnd = new SplittableRandom(7 * thread + 1);
                    for (int r = 0; r < ROUNDS && failure.get() == null; r++) {
                        start.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                        perThread.get(thread).addAll(step.run(thread, rnd));
                        end.await(WAIT.toSeconds(), TimeUnit.SECONDS);
                    }
                    return null;
                };
                fs.add(pool.submit(body));
            }
            for (Future<Void> f : fs) {
                f.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertNull(failure.get());
        assertTrue(withdrawn.get() > 0 && woken.get() > 0, "both outcomes occurred: withdrawn " + withdrawn + ", woken " + woken);
    }

    @FunctionalInterface
    private interface Step {
        List<Watched> run(int thread, SplittableRandom rnd) throws Exception;
    }

    /** Registers a waiter, maybe cancels it after a random pause. */
    private static Watched waitMaybeCancel(Supplier<Awaitable<?>> wait, SplittableRandom rnd) {
        Watched w = new Watched(wait.get());
        if (rnd.nextBoolean()) {
            spin(rnd.nextInt(100));
            w.withdrawn = w.wait.cancel();
        }
        return w;
    }

    @Test
    void eventWakesEveryWaiterExactlyOnce() throws Exception {
        AtomicReference<AsyncEvent<Integer>> event = new AtomicReference<>();
        rounds(() -> event.set(new AsyncEvent<>()), (thread, rnd) -> {
            AsyncEvent<Integer> e = event.get();
            List<Watched> ws = new ArrayList<>();
            if (thread == 0) {
                spin(rnd.nextInt(100));
                e.set(42);
                ws.add(waitMaybeCancel(e::awaitAsync, rnd)); // after set: at once
            } else {
                ws.add(waitMaybeCancel(e::awaitAsync, rnd));
                ws.add(waitMaybeCancel(e::awaitAsync, rnd));
            }
            return ws;
        });
    }

    @Test
    void latchWakesEveryWaiterExactlyOnce() throws Exception {
        AtomicReference<AsyncLatch> latch = new AtomicReference<>();
        rounds(() -> latch.set(new AsyncLatch(2)), (thread, rnd) -> {
            AsyncLatch l = latch.get();
            List<Watched> ws = new ArrayList<>();
            ws.add(waitMaybeCancel(l::awaitAsync, rnd));
            if (thread < 2) {
                spin(rnd.nextInt(100));
                l.countDown();
            }
            ws.add(waitMaybeCancel(l::awaitAsync, rnd));
            return ws;
        });
    }

    @Test
    void waitGroupWakesEveryWaiterOfItsRoundExactlyOnce() throws Exception {
        AtomicReference<WaitGroup> group = new AtomicReference<>();
        rounds(() -> {
            WaitGroup wg = new WaitGroup();
            wg.add(2);
            group.set(wg);
        }, (thread, rnd) -> {
            WaitGroup wg = group.get();
            List<Watched> ws = new ArrayList<>();
            ws.add(waitMaybeCancel(wg::awaitAsync, rnd));
            switch (thread) {
                case 0 -> {
                    spin(rnd.nextInt(100));
                    wg.done();
                }
                case 1 -> {
                    wg.add(1); // the counter is > 0 here: the same round goes on
                    spin(rnd.nextInt(100));
                    wg.done();
                    wg.done();
                }
                default -> ws.add(waitMaybeCancel(wg::awaitAsync, rnd));
            }
            return ws;
        });
    }

    @Test
    void conditionSignalsAreNeverStolenByWithdrawnWaiters() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AtomicReference<AsyncCondition> condition = new AtomicReference<>();
        AtomicInteger finished = new AtomicInteger();
        AtomicLong signals = new AtomicLong();
        AtomicLong successes = new AtomicLong();
        AtomicReference<String> failure = new AtomicReference<>();
        rounds(() -> {
            condition.set(new AsyncCondition(m));
            finished.set(0);
        }, (thread, rnd) -> {
            AsyncCondition c = condition.get();
            if (thread == 2) { // the signaller: until both waiters are done
                while (finished.get() < 2) {
                    if (c.signal()) {
                        signals.incrementAndGet();
                    }
                    Thread.yield();
                }
                return List.of();
            }
            m.lockAsync().join(WAIT);
            Watched w = waitMaybeCancel(c::awaitAsync, rnd);
            Outcome<?> o = outcomeOf(w.wait);
            if (!m.isLocked()) {
                failure.compareAndSet(null, "wait ended (" + o + ") without holding the mutex");
            }
            if (o.isSuccess()) {
                successes.incrementAndGet();
            }
            m.unlock();
            finished.incrementAndGet();
            return List.of(w);
        });
        assertNull(failure.get());
        assertEquals(signals.get(), successes.get(), "each signal that found a waiter woke exactly one, never a withdrawn one");
        assertTrue(!m.isLocked());
    }

    @Test
    void conditionPredicateWaitsLoseNoWakeUpUnderCancellation() throws Exception {
        AsyncMutex m = new AsyncMutex();
        AsyncCondition tokensAvailable = new AsyncCondition(m);
        int[] tokens = {0};
        int consumers = 2;
        int each = 5_000;
        AtomicLong withdrawn = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(consumers + 1);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int c = 0; c < consumers; c++) {
                long seed = 99 + c;
                fs.add(pool.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    int got = 0;
                    while (got < each) {
                        m.lockAsync().join(WAIT);
                        try {
                            Awaitable<Void> w = tokensAvailable.awaitUntilAsync(() -> tokens[0] > 0);
                            if (rnd.nextInt(4) == 0) {
                                spin(rnd.nextInt(50));
                                if (w.cancel()) {
                                    withdrawn.incrementAndGet();
                                }
                            }
                            if (outcomeOf(w).isSuccess()) {
                                tokens[0]--;
                                got++;
                            }
                        } finally {
                            m.unlock();
                        }
                    }
                    return null;
                }));
            }
            fs.add(pool.submit(() -> { // at most one token at a time, so consumers really wait
                int produced = 0;
                while (produced < consumers * each) {
                    m.lockAsync().join(WAIT);
                    try {
                        if (tokens[0] == 0) {
                            tokens[0]++;
                            produced++;
                            tokensAvailable.signal();
                        }
                    } finally {
                        m.unlock();
                    }
                    Thread.yield();
                }
                return null;
            }));
            for (Future<?> f : fs) {
                f.get(WAIT.toSeconds() * 2, TimeUnit.SECONDS); // a lost wake-up would hang a consumer
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(0, tokens[0]);
        assertTrue(withdrawn.get() > 0);
        assertTrue(!m.isLocked());
    }

    private static void spin(int n) {
        for (int i = 0; i < n; i++) {
            Thread.onSpinWait();
        }
    }
}
