package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Registration;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A withdrawn callback becomes garbage, not only absent from the pending stack: the stack's length
 * was bounded, but the registered nodes a pruned copy points to still linked to the stack as it
 * was when each registered, so every withdrawn callback below them (a cancelled waiter, a whole
 * cancelled coroutine) stayed reachable from the awaitable until it was decided. Waiters that
 * give up in batches on a long-lived awaitable (timed waits on an event that is never set) made
 * the heap grow without limit.
 *
 * <p>Live waiters stay registered throughout; batches of waiters register and are withdrawn in
 * several orders; after many batches none of the first batch's callbacks may be reachable.
 */
class WithdrawnCallbackReachabilityTest {

    private static final int LIVE = 100;
    private static final int BATCH = 1_000;
    private static final int BATCHES = 20;

    enum Order { OLDEST_FIRST, NEWEST_FIRST, RANDOM }

    @Test
    void withdrawnOldestFirst() throws Exception {
        assertFirstBatchCollected(Order.OLDEST_FIRST);
    }

    @Test
    void withdrawnNewestFirst() throws Exception {
        assertFirstBatchCollected(Order.NEWEST_FIRST);
    }

    @Test
    void withdrawnInRandomOrder() throws Exception {
        assertFirstBatchCollected(Order.RANDOM);
    }

    /**
     * The same with the prunes racing: four threads register and withdraw their batches on one
     * promise at once (each prune's compare-and-set can lose to another's), while live callbacks
     * stay. None of the first batches may stay reachable, and every live callback runs once.
     */
    @Test
    void withdrawnByFourThreadsAtOnce() throws Exception {
        Promise<Integer> p = new Promise<>();
        java.util.concurrent.atomic.AtomicInteger ran = new java.util.concurrent.atomic.AtomicInteger();
        List<Registration> live = Collections.synchronizedList(new ArrayList<>());
        List<WeakReference<Consumer<Outcome<Integer>>>> first = Collections.synchronizedList(new ArrayList<>());
        int threads = 4;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            long seed = t;
            workers.add(Thread.ofPlatform().start(() -> {
                try {
                    Random random = new Random(seed);
                    start.await();
                    for (int b = 0; b < BATCHES; b++) {
                        live.add(p.onComplete(o -> ran.incrementAndGet()));
                        List<Registration> batch = registerBatch(p, b == 0 ? first : null);
                        Collections.shuffle(batch, random);
                        for (Registration r : batch) {
                            r.dispose();
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread w : workers) {
            w.join(60_000);
        }
        assertEquals(List.of(), failures);
        int reachable = reachableAfterGc(first);
        assertEquals(0, reachable, "callbacks of the first batches still reachable after the racing prunes (the stack keeps "
                + RetainedCallbacks.of(p) + " nodes)");
        p.complete(1);
        assertEquals(threads * BATCHES, ran.get(), "every live callback ran once");
    }

    private static void assertFirstBatchCollected(Order order) throws Exception {
        Promise<Integer> p = new Promise<>();
        List<Registration> live = new ArrayList<>();
        for (int i = 0; i < LIVE; i++) {
            live.add(p.onComplete(o -> { }));
        }
        Random random = new Random(42);
        List<WeakReference<Consumer<Outcome<Integer>>>> first = new ArrayList<>();
        for (int b = 0; b < BATCHES; b++) {
            List<Registration> batch = registerBatch(p, b == 0 ? first : null);
            switch (order) {
                case NEWEST_FIRST -> Collections.reverse(batch);
                case RANDOM -> Collections.shuffle(batch, random);
                case OLDEST_FIRST -> { }
            }
            for (Registration r : batch) {
                r.dispose();
            }
        }
        int reachable = reachableAfterGc(first);
        assertEquals(0, reachable, order + ": callbacks of the first batch still reachable after "
                + (BATCHES - 1) + " more batches (the stack keeps " + RetainedCallbacks.of(p) + " nodes)");
        p.complete(1); // the live ones still run
        live.forEach(Registration::dispose);
    }

    /** Registers {@link #BATCH} callbacks on {@code p}; if {@code watched} is given, adds a weak reference to each. */
    private static List<Registration> registerBatch(Promise<Integer> p, List<WeakReference<Consumer<Outcome<Integer>>>> watched) {
        List<Registration> batch = new ArrayList<>(BATCH);
        for (int i = 0; i < BATCH; i++) {
            Consumer<Outcome<Integer>> callback = new Callback();
            if (watched != null) {
                watched.add(new WeakReference<>(callback));
            }
            batch.add(p.onComplete(callback));
        }
        return batch;
    }

    /** How many of {@code refs} are still reachable after collecting (a few tries). */
    private static int reachableAfterGc(List<? extends WeakReference<?>> refs) throws InterruptedException {
        int reachable = 0;
        for (int attempt = 0; attempt < 10; attempt++) {
            System.gc();
            Thread.sleep(20);
            reachable = (int) refs.stream().filter(w -> w.get() != null).count();
            if (reachable == 0) {
                break;
            }
        }
        return reachable;
    }

    /** A callback with some weight, as a waiter's is. */
    private static final class Callback implements Consumer<Outcome<Integer>> {
        @SuppressWarnings("unused")
        private final byte[] weight = new byte[256];

        @Override
        public void accept(Outcome<Integer> o) {
        }
    }
}
