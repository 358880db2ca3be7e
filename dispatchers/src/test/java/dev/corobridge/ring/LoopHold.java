package dev.corobridge.ring;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Keeps rings' threads busy in a task until {@link #close()}, so that nothing queued to them can
 * run meanwhile: a caller that would wait for one of them is caught waiting instead of getting lucky.
 * As a safety net (a caller that does block must not hang the test), the hold lets go by itself
 * after twice {@link RingTestSupport#WAIT}, and {@link #expired()} then says so.
 */
final class LoopHold implements AutoCloseable {

    private final CountDownLatch released = new CountDownLatch(1);
    private volatile boolean expired;

    /** Holds every ring of {@code pool} except {@code spared} (may be {@code null}). */
    LoopHold(RingPool pool, Ring spared) throws InterruptedException {
        int n = 0;
        for (Ring r : pool.getRings()) {
            if (r != spared) {
                n++;
            }
        }
        CountDownLatch entered = new CountDownLatch(n);
        for (Ring r : pool.getRings()) {
            if (r == spared) {
                continue;
            }
            r.execute(() -> {
                entered.countDown();
                try {
                    if (!released.await(2 * RingTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS)) {
                        expired = true;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        if (!entered.await(RingTestSupport.WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the rings never ran the holding task");
        }
    }

    /** Whether the hold let go by itself, i.e. something waited for the held rings all along. */
    boolean expired() {
        return expired;
    }

    @Override
    public void close() {
        released.countDown();
    }
}
