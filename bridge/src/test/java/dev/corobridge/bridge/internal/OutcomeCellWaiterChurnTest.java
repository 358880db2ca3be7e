package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Registration;
import dev.corobridge.bridge.Task;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Waiters that give up do not pile up in an {@link OutcomeCell}: whatever the order of
 * registrations and withdrawals, the callbacks it keeps stay within a constant factor of the live
 * ones plus a small constant. The cases are the ones where withdrawn callbacks used to stay until
 * the cell was decided: overlapping waits that give up one after the other (each withdrawn after
 * the next registered), withdrawals that nobody registers after, and Java's {@code join(Duration)}
 * on a task ended while the other waiter waits. The Lincheck model of the same churn is
 * {@code OutcomeCellChurnLincheckTest}.
 */
class OutcomeCellWaiterChurnTest {

    /** What a cell with two live waiters may keep at most (withdrawn callbacks included). */
    private static final int BOUND_FOR_TWO = 100;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void twoOverlappingWaitersThatGiveUpInTurnKeepNothingOfTheirPastWaits() {
        Promise<Integer> p = new Promise<>();
        Consumer<Outcome<Integer>> nothing = o -> { };
        Registration previous = p.onComplete(nothing);
        int most = 0;
        for (int i = 0; i < 100_000; i++) {
            Registration next = p.onComplete(nothing); // the other waiter registers ...
            previous.dispose();                         // ... then this one gives up
            previous = next;
            if (i % 1_000 == 0) {
                most = Math.max(most, RetainedCallbacks.of(p));
            }
        }
        most = Math.max(most, RetainedCallbacks.of(p));
        assertTrue(most < BOUND_FOR_TWO, "kept " + most + " callbacks for 1 live waiter after 100,000 withdrawals");
    }

    @Test
    void withdrawalsThatNobodyRegistersAfterAreDroppedToo() {
        Promise<Integer> p = new Promise<>();
        List<Registration> all = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            all.add(p.onComplete(o -> { }));
        }
        for (Registration r : all) { // oldest first: each one lies under every later registration
            r.dispose();
        }
        assertTrue(RetainedCallbacks.of(p) < BOUND_FOR_TWO, "kept " + RetainedCallbacks.of(p) + " withdrawn callbacks");

        Promise<Integer> q = new Promise<>();
        all.clear();
        for (int i = 0; i < 10_000; i++) {
            all.add(q.onComplete(o -> { }));
        }
        for (int i = all.size() - 1; i >= 0; i--) { // newest first
            all.get(i).dispose();
        }
        assertTrue(RetainedCallbacks.of(q) < BOUND_FOR_TWO, "kept " + RetainedCallbacks.of(q) + " withdrawn callbacks");
    }

    /** Kept callbacks scattered among withdrawn ones: the cell keeps at most twice the kept ones and a few. */
    @Test
    void keptCallbacksAmongWithdrawnOnesBoundTheMemoryAndStillRunOnceInRegistrationOrder() {
        Promise<Integer> p = new Promise<>();
        List<Integer> ran = new ArrayList<>();
        List<Integer> kept = new ArrayList<>();
        List<Registration> toWithdraw = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            int id = i;
            Registration r = p.onComplete(o -> ran.add(id));
            if (i % 100 == 7) {
                kept.add(id);
            } else {
                toWithdraw.add(r);
            }
            if (toWithdraw.size() > 3) {
                toWithdraw.remove(0).dispose(); // withdrawn after three later registrations
            }
        }
        toWithdraw.forEach(Registration::dispose);
        int live = kept.size();
        int retained = RetainedCallbacks.of(p);
        assertTrue(retained <= 2 * live + 32, "kept " + retained + " callbacks for " + live + " live ones");
        p.complete(1);
        assertEquals(kept, ran, "each kept callback ran once, in registration order; no withdrawn one ran");
    }

    /** Threads churning at once: at rest the cell keeps at most twice the live callbacks and a few. */
    @Test
    void concurrentChurnStaysBoundedAndRunsEveryKeptCallbackOnce() throws Exception {
        int threads = 4;
        int rounds = 20_000;
        Promise<Integer> p = new Promise<>();
        AtomicInteger withdrawnRuns = new AtomicInteger();
        ConcurrentLinkedQueue<AtomicInteger> keptRuns = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int t = 0; t < threads; t++) {
            int seed = t;
            workers.add(Thread.ofPlatform().name("churn-" + t).start(() -> {
                try {
                    start.await();
                    Registration[] mine = new Registration[2];
                    for (int i = 0; i < rounds; i++) {
                        int slot = (i + seed) & 1;
                        if (mine[slot] != null) {
                            mine[slot].dispose();
                        }
                        mine[slot] = p.onComplete(o -> withdrawnRuns.incrementAndGet());
                    }
                    // Two live callbacks per thread stay: they must run once each.
                    for (int slot = 0; slot < 2; slot++) {
                        mine[slot].dispose();
                        AtomicInteger runs = new AtomicInteger();
                        keptRuns.add(runs);
                        p.onComplete(o -> runs.incrementAndGet());
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }));
        }
        start.countDown();
        for (Thread w : workers) {
            assertTrue(w.join(WAIT), "churn thread did not finish");
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        int live = 2 * threads;
        int retained = RetainedCallbacks.of(p);
        assertTrue(retained <= 2 * live + 32, "kept " + retained + " callbacks for " + live + " live ones at rest");
        p.complete(1);
        assertEquals(0, withdrawnRuns.get(), "a withdrawn callback ran");
        for (AtomicInteger runs : keptRuns) {
            assertEquals(1, runs.get(), "a kept callback ran " + runs.get() + " times");
        }
    }

    /**
     * Java's {@code join(Duration)} on a task, from two threads whose waits overlap: each wait is
     * ended (by an interrupt, so that the order is deterministic) while the other thread waits,
     * and the thread waits again. Each ended wait withdraws its callback under the other's.
     */
    @Test
    void javaJoinWithTimeoutFromTwoThreadsEndedInTurnKeepsNoOldWaits() throws Exception {
        Promise<Integer> source = new Promise<>();
        Task<Integer> task = Task.from(source);
        AtomicInteger[] ended = {new AtomicInteger(), new AtomicInteger()};
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] waiters = new Thread[2];
        for (int i = 0; i < 2; i++) {
            AtomicInteger myEnds = ended[i];
            waiters[i] = Thread.ofPlatform().name("joiner-" + i).start(() -> {
                while (true) {
                    try {
                        task.join(Duration.ofMinutes(5));
                        return; // completed at the end of the test
                    } catch (InterruptedException e) {
                        myEnds.incrementAndGet();
                    } catch (TimeoutException | RuntimeException e) {
                        failure.set(e);
                        return;
                    }
                }
            });
        }
        try {
            awaitParked(waiters[0], task, ended[0], 0);
            awaitParked(waiters[1], task, ended[1], 0);
            int most = 0;
            int rounds = 4_000;
            for (int r = 0; r < rounds; r++) {
                int w = r & 1;
                waiters[w].interrupt(); // this wait ends below the other thread's ...
                awaitParked(waiters[w], task, ended[w], r / 2 + 1); // ... and it waits again, on top
                most = Math.max(most, RetainedCallbacks.of(task));
            }
            assertTrue(most < BOUND_FOR_TWO, "kept " + most + " callbacks for 2 waiting threads after " + rounds + " ended waits");
        } finally {
            source.complete(1);
            for (Thread w : waiters) {
                assertTrue(w.join(WAIT), "joiner did not finish");
            }
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    /** Until {@code t} ended {@code ends} waits and is parked in the next one on {@code on} (bounded). */
    private static void awaitParked(Thread t, Object on, AtomicInteger ended, int ends) {
        awaitTrue(() -> ended.get() == ends && LockSupport.getBlocker(t) == on,
                () -> t.getName() + " ended " + ended.get() + " waits (expected " + ends + "), state " + t.getState());
    }

    private static void awaitTrue(BooleanSupplier condition, Supplier<String> what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not reached within " + WAIT + ": " + what.get());
            }
            Thread.yield();
        }
    }
}
