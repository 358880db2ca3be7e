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

    private static void assertFirstBatchCollected(Order order) throws Exception {
        Promise<Integer> p = new Promise<>();
        List<Registration> live = new ArrayList<>();
        for (int i = 0; i < LIVE; i++) {
            live.add(p.onComplete(o -> { }));
        }
        Random random = new Random(42);
        List<WeakReference<Consumer<Outcome<Integer>>>> first = new ArrayList<>();
        for (int b = 0; b < BATCHES; b++) {
            List<Registration> batch = new ArrayList<>(BATCH);
            for (int i = 0; i < BATCH; i++) {
                Consumer<Outcome<Integer>> callback = new Callback();
                if (b == 0) {
                    first.add(new WeakReference<>(callback));
                }
                batch.add(p.onComplete(callback));
            }
            switch (order) {
                case NEWEST_FIRST -> Collections.reverse(batch);
                case RANDOM -> Collections.shuffle(batch, random);
                case OLDEST_FIRST -> { }
            }
            for (Registration r : batch) {
                r.dispose();
            }
        }
        int reachable = 0;
        for (int attempt = 0; attempt < 10; attempt++) {
            System.gc();
            Thread.sleep(20);
            reachable = 0;
            for (WeakReference<?> w : first) {
                if (w.get() != null) {
                    reachable++;
                }
            }
            if (reachable == 0) {
                break;
            }
        }
        assertEquals(0, reachable, order + ": callbacks of the first batch still reachable after "
                + (BATCHES - 1) + " more batches (the stack keeps " + RetainedCallbacks.of(p) + " nodes)");
        p.complete(1); // the live ones still run
        live.forEach(Registration::dispose);
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
