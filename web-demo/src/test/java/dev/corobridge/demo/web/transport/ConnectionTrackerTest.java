package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Counting, activity time and the wake-up of {@link ConnectionTracker}. */
class ConnectionTrackerTest {

    @Test
    void aConnectionIsBusyUntilAnsweredAndAgainWithEachRequest() {
        AtomicLong now = new AtomicLong(100);
        ConnectionTracker t = new ConnectionTracker(now::get);
        assertThat(t.lastActivityNanos()).isEqualTo(100);

        now.set(200);
        t.opened();
        assertThat(t.open()).isEqualTo(1);
        assertThat(t.busy()).isEqualTo(1);
        assertThat(t.lastActivityNanos()).isEqualTo(200);

        now.set(300);
        t.answered();
        assertThat(t.busy()).isZero();
        assertThat(t.open()).isEqualTo(1);
        assertThat(t.lastActivityNanos()).isEqualTo(300);

        now.set(400);
        t.requestStarted();
        assertThat(t.busy()).isEqualTo(1);
        assertThat(t.lastActivityNanos()).isEqualTo(400);

        now.set(500);
        t.closed(true);
        assertThat(t.busy()).isZero();
        assertThat(t.open()).isZero();
        assertThat(t.lastActivityNanos()).isEqualTo(500);
    }

    @Test
    void closingAnIdleConnectionLeavesTheBusyCountAlone() {
        ConnectionTracker t = new ConnectionTracker();
        t.opened();
        t.opened();
        t.answered();
        t.closed(false);
        assertThat(t.open()).isEqualTo(1);
        assertThat(t.busy()).isEqualTo(1);
    }

    @Test
    void lastActivityNeverMovesBack() {
        AtomicLong now = new AtomicLong(1_000);
        ConnectionTracker t = new ConnectionTracker(now::get);
        t.opened();
        now.set(900); // a report from a thread that read the clock earlier
        t.answered();
        assertThat(t.lastActivityNanos()).isEqualTo(1_000);
    }

    @Test
    void refusalsAreCounted() {
        ConnectionTracker t = new ConnectionTracker();
        t.refused();
        t.refused();
        assertThat(t.refusedCount()).isEqualTo(2);
    }

    @Test
    @Timeout(60)
    void awaitIdleReturnsWhenTheLastBusyConnectionIsAnswered() throws Exception {
        ConnectionTracker t = new ConnectionTracker();
        t.opened();
        t.opened();
        AtomicReference<Boolean> idle = new AtomicReference<>();
        CountDownLatch returned = new CountDownLatch(1);
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                idle.set(t.awaitIdle(t.nanoTime() + TimeUnit.HOURS.toNanos(1)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            returned.countDown();
        });
        t.answered();
        assertThat(returned.getCount()).as("one connection still busy").isEqualTo(1);
        t.closed(true);
        returned.await();
        waiter.join();
        assertThat(idle.get()).isTrue();
    }

    @Test
    @Timeout(60)
    void awaitIdleReturnsAtOnceWhenNothingIsBusy() throws Exception {
        ConnectionTracker t = new ConnectionTracker();
        assertThat(t.awaitIdle(t.nanoTime() + TimeUnit.HOURS.toNanos(1))).isTrue();
        t.opened();
        t.answered();
        assertThat(t.awaitIdle(t.nanoTime() + TimeUnit.HOURS.toNanos(1))).isTrue();
    }

    @Test
    @Timeout(60)
    void awaitIdleReturnsFalseAtItsDeadline() throws Exception {
        ConnectionTracker t = new ConnectionTracker();
        t.opened(); // busy: only the deadline can end the wait
        assertThat(t.awaitIdle(t.nanoTime() - 1)).isFalse();
        assertThat(t.awaitIdle(t.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5))).isFalse();
        assertThat(t.busy()).isEqualTo(1);
    }

    @Test
    @Timeout(60)
    void awaitIdleIsInterruptible() throws Exception {
        ConnectionTracker t = new ConnectionTracker();
        t.opened();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                t.awaitIdle(t.nanoTime() + TimeUnit.HOURS.toNanos(1));
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        waiter.interrupt();
        waiter.join();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
    }

    /**
     * Many rounds of a waiter racing the close of the last busy connection: whichever comes first,
     * the waiter returns, idle (a lost wake-up would hang until the one-hour deadline, and the test
     * times out).
     */
    @Test
    @Timeout(120)
    void noWakeUpIsLostWhenTheAnswerRacesTheWaiter() throws Exception {
        ConnectionTracker t = new ConnectionTracker();
        for (int round = 0; round < 5_000; round++) {
            t.opened();
            CyclicBarrier start = new CyclicBarrier(2);
            Thread waiter = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                    if (!t.awaitIdle(t.nanoTime() + TimeUnit.HOURS.toNanos(1))) {
                        throw new AssertionError("returned busy before its deadline");
                    }
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            start.await();
            if (ThreadLocalRandom.current().nextBoolean()) {
                Thread.onSpinWait();
            }
            t.closed(true);
            waiter.join();
        }
        assertThat(t.busy()).isZero();
        assertThat(t.open()).isZero();
    }

    /** Connections opened, answered, reused and closed from many threads at once balance out. */
    @Test
    @Timeout(120)
    void countsBalanceUnderConcurrentConnections() throws Exception {
        ConnectionTracker t = new ConnectionTracker();
        List<Thread> loops = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            loops.add(Thread.ofPlatform().start(() -> {
                ThreadLocalRandom r = ThreadLocalRandom.current();
                for (int c = 0; c < 20_000; c++) {
                    t.opened();
                    boolean busy = true;
                    int requests = r.nextInt(4);
                    for (int q = 0; q < requests; q++) {
                        if (busy) {
                            t.answered();
                        }
                        t.requestStarted();
                        busy = true;
                    }
                    if (r.nextBoolean()) {
                        t.answered();
                        busy = false;
                    }
                    t.closed(busy);
                }
            }));
        }
        for (Thread l : loops) {
            l.join();
        }
        assertThat(t.busy()).isZero();
        assertThat(t.open()).isZero();
    }
}
