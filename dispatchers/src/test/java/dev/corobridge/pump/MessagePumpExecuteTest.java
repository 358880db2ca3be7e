package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every source of the loop: posts, the Executor face, timers, completions, the idle hook. */
class MessagePumpExecuteTest {

    private final List<MessagePump> pumps = new ArrayList<>();

    private MessagePump pump(PumpConfig config) {
        MessagePump p = MessagePump.start(config);
        pumps.add(p);
        return p;
    }

    private MessagePump pump() {
        return pump(PumpConfig.defaults("post-test"));
    }

    @AfterEach
    void stopAll() throws Exception {
        for (MessagePump p : pumps) {
            stop(p);
        }
    }

    @Test
    void executeRunsOnThePumpThreadInOrderPerProducer() throws Exception {
        MessagePump p = pump();
        int producers = 4;
        int each = 20_000;
        List<List<Integer>> seen = new ArrayList<>();
        for (int i = 0; i < producers; i++) {
            seen.add(new ArrayList<>());
        }
        AtomicBoolean offPump = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(producers * each);
        Thread[] threads = new Thread[producers];
        for (int i = 0; i < producers; i++) {
            int id = i;
            threads[i] = new Thread(() -> {
                for (int j = 0; j < each; j++) {
                    int v = j;
                    p.execute(() -> {
                        if (!p.isCurrentThread()) {
                            offPump.set(true);
                        }
                        seen.get(id).add(v); // pump-confined: no synchronisation needed
                        done.countDown();
                    });
                }
            });
            threads[i].start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(done.await(WAIT.toSeconds(), TimeUnit.SECONDS), "not all posts ran");
        assertFalse(offPump.get(), "a post ran off the pump thread");
        onPump(p, () -> {
            for (List<Integer> s : seen) {
                assertEquals(each, s.size());
                for (int j = 0; j < each; j++) {
                    assertEquals(j, s.get(j), "per-producer order broken");
                }
            }
        });
        // Read on the pump: every earlier task is counted, and the reading task itself (counted as it starts).
        assertEquals(producers * (long) each + 2, (long) onPump(p, () -> p.getMetrics().dispatches()), "dispatch count");
    }

    @Test
    void executorFaceWorksWithCompletableFuture() throws Exception {
        MessagePump p = pump();
        Thread pumpThread = p.getThread();
        String name = CompletableFuture.supplyAsync(() -> Thread.currentThread().getName(), p)
                .thenApplyAsync(n -> n + "/" + (Thread.currentThread() == pumpThread), p)
                .get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals("post-test/true", name);
    }

    @Test
    void executeFromAPumpTaskRunsAfterItNeverInline() throws Exception {
        MessagePump p = pump();
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        CompletableFuture<Integer> innerDepth = new CompletableFuture<>();
        onPump(p, () -> {
            int outerDepth = Thread.currentThread().getStackTrace().length;
            p.execute(() -> {
                order.add("inner");
                innerDepth.complete(Thread.currentThread().getStackTrace().length - outerDepth);
            });
            p.execute(() -> order.add("inner2"));
            order.add("outer-end");
        });
        int delta = innerDepth.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        onPump(p, () -> { });
        assertEquals(List.of("outer-end", "inner", "inner2"), order);
        // The inner task ran from the loop, not on top of the outer task's frames.
        assertTrue(delta <= 2, "inner task ran " + delta + " frames deeper than the outer one");
    }

    @Test
    void scheduleFiresInDueOrderAndCanBeCancelled() {
        // A manual clock: "cancel before it is due" and "not before its time" hold by construction,
        // not because the test thread happened to be faster than 30 ms of real time.
        ManualPump p = ManualPump.create("delayed");
        List<String> order = new ArrayList<>();
        p.schedule(() -> order.add("c"), Duration.ofMillis(60));
        p.schedule(() -> order.add("a"), Duration.ofMillis(20));
        PumpTimer cancelled = p.schedule(() -> order.add("never"), Duration.ofMillis(30));
        p.schedule(() -> order.add("b"), Duration.ofMillis(40));
        assertTrue(cancelled.cancel());
        assertFalse(cancelled.cancel(), "second cancel must lose");
        assertEquals(PumpTimer.State.CANCELLED, cancelled.getState());
        p.advanceTimeBy(Duration.ofMillis(59));
        assertEquals(List.of("a", "b"), order, "nothing fires before its due time");
        p.advanceTimeBy(Duration.ofMillis(1));
        assertEquals(List.of("a", "b", "c"), order);
        assertEquals(0, p.getMetrics().pendingTimers());
        assertEquals(3, p.getMetrics().timersFired());
    }

    @Test
    void aTimerCancelledFromAnotherThreadBeforeItIsDueNeverRuns() throws Exception {
        MessagePump p = pump();
        AtomicBoolean ran = new AtomicBoolean();
        PumpTimer t = p.schedule(() -> ran.set(true), Duration.ofHours(1));
        assertTrue(t.cancel());
        assertEquals(PumpTimer.State.CANCELLED, t.getState());
        onPump(p, () -> assertEquals(0, p.getMetrics().pendingTimers()));
        assertFalse(ran.get());
    }

    /**
     * Timers cancelled from another thread while the pump is idle are let go without waiting for
     * unrelated work to wake the pump (or for the earliest one's due time, an hour here): what
     * their actions hold becomes garbage.
     */
    @Test
    void timersCancelledWhileThePumpIsIdleDoNotStayReachable() throws Exception {
        MessagePump p = pump();
        int n = 1_000;
        List<PumpTimer> timers = new ArrayList<>(n);
        List<java.lang.ref.WeakReference<Object>> held = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Object payload = new byte[1024];
            held.add(new java.lang.ref.WeakReference<>(payload));
            timers.add(p.schedule(() -> assertNotNull(payload), Duration.ofHours(1)));
        }
        onPump(p, () -> { }); // every insertion has reached the heap (they were posted before this)
        for (PumpTimer t : timers) {
            assertTrue(t.cancel());
        }
        timers.clear();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int reachable;
        do {
            System.gc();
            reachable = (int) held.stream().filter(r -> r.get() != null).count();
        } while (reachable >= 64 && System.nanoTime() - deadline < 0 && sleep(50));
        // Fewer than the purge's minimum (64) may wait for the pump's next iteration.
        assertTrue(reachable < 64, reachable + " payloads of cancelled timers still reachable 10 s after the cancel, the pump idle");
    }

    private static boolean sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
        return true;
    }

    @Test
    void aTimerThatFiredCannotBeCancelled() throws Exception {
        MessagePump p = pump();
        CountDownLatch fired = new CountDownLatch(1);
        PumpTimer t = p.schedule(fired::countDown, Duration.ZERO);
        assertTrue(fired.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertFalse(t.cancel(), "it already fired");
        assertEquals(PumpTimer.State.FIRED, t.getState());
    }

    @Test
    void timersWithTheSameDueTimeFireInSchedulingOrder() throws Exception {
        ManualPump p = ManualPump.create("same-due");
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            int v = i;
            p.schedule(() -> order.add(v), Duration.ofMillis(5));
        }
        p.advanceTimeBy(Duration.ofMillis(5));
        for (int i = 0; i < 100; i++) {
            assertEquals(i, order.get(i));
        }
    }

    @Test
    void completionsAreDeliveredOnThePump() throws Exception {
        MessagePump p = pump();
        CompletableFuture<Boolean> onPump = new CompletableFuture<>();
        Thread io = new Thread(() -> assertTrue(p.deliver(() -> onPump.complete(p.isCurrentThread()))), "fake-io");
        io.start();
        assertTrue(onPump.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        // Read on the pump: the completion task has finished (and been counted) by then.
        assertEquals(1L, (long) onPump(p, () -> p.getMetrics().completionsDelivered()));
    }

    @Test
    void idleHookRunsWhenTheLoopRunsOutOfWork() throws Exception {
        AtomicInteger idles = new AtomicInteger();
        AtomicReference<Thread> hookThread = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        MessagePump p = pump(PumpConfig.builder("idle").idleHook(() -> {
            hookThread.set(Thread.currentThread());
            idles.incrementAndGet();
            ran.countDown();
        }).build());
        onPump(p, () -> { });
        assertTrue(ran.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertSame(p.getThread(), hookThread.get());
    }

    @Test
    void aThrowingTaskIsReportedAndTheLoopGoesOn() throws Exception {
        List<Throwable> reported = Collections.synchronizedList(new ArrayList<>());
        MessagePump p = pump(PumpConfig.builder("failing")
                .uncaughtExceptionHandler((t, e) -> reported.add(e)).build());
        p.execute(() -> {
            throw new IllegalStateException("task failed");
        });
        assertEquals("still alive", onPump(p, () -> "still alive"));
        assertEquals(1, reported.size());
        assertEquals("task failed", reported.get(0).getMessage());
        assertEquals(1, p.getMetrics().taskFailures());
    }

    @Test
    void aTaskThatRepostsItselfForeverStarvesNeitherTimersNorOtherProducers() throws Exception {
        MessagePump p = pump(PumpConfig.builder("fair").batchSize(16).build());
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger spins = new AtomicInteger();
        Runnable[] hog = new Runnable[1];
        hog[0] = () -> {
            spins.incrementAndGet();
            if (!stop.get()) {
                p.execute(hog[0]);
            }
        };
        p.execute(hog[0]);
        CompletableFuture<Boolean> timer = new CompletableFuture<>();
        p.schedule(() -> timer.complete(true), Duration.ofMillis(20));
        CompletableFuture<Boolean> completion = new CompletableFuture<>();
        p.deliver(() -> completion.complete(true));
        CompletableFuture<Boolean> other = new CompletableFuture<>();
        p.execute(() -> other.complete(true));
        try {
            assertTrue(timer.get(WAIT.toSeconds(), TimeUnit.SECONDS), "timer starved");
            assertTrue(completion.get(WAIT.toSeconds(), TimeUnit.SECONDS), "completion starved");
            assertTrue(other.get(WAIT.toSeconds(), TimeUnit.SECONDS), "other producer starved");
        } finally {
            stop.set(true);
        }
        assertTrue(spins.get() > 16, "the hog did not actually run");
    }

    @Test
    void runLoopTurnsTheCallingThreadIntoThePump() throws Exception {
        MessagePump p = MessagePump.create("main-ui");
        CompletableFuture<Thread> ranOn = new CompletableFuture<>();
        p.execute(() -> ranOn.complete(Thread.currentThread())); // queued before the loop starts
        assertEquals(1, p.getMetrics().queueDepth());
        Thread loop = new Thread(p::runLoop, "app-main");
        loop.start();
        Thread t = ranOn.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertSame(loop, t);
        assertSame(loop, p.getThread());
        IllegalStateException again = assertThrows(IllegalStateException.class, p::runLoop);
        assertTrue(again.getMessage().contains("app-main"), again.getMessage());
        stop(p);
        loop.join(WAIT.toMillis());
        assertFalse(loop.isAlive(), "runLoop did not return after shutdown");
        assertThrows(IllegalStateException.class, p::runLoop);
    }

    @Test
    void badArgumentsAreRejectedClearly() {
        MessagePump p = pump();
        assertThrows(NullPointerException.class, () -> p.execute(null));
        assertThrows(NullPointerException.class, () -> p.execute(null));
        assertThrows(NullPointerException.class, () -> p.deliver(null));
        assertThrows(IllegalArgumentException.class, () -> p.schedule(() -> { }, Duration.ofMillis(-1)));
        assertThrows(IllegalArgumentException.class, () -> PumpConfig.builder(" "));
        assertThrows(IllegalArgumentException.class, () -> PumpConfig.builder("x").batchSize(0));
        assertThrows(IllegalArgumentException.class, () -> PumpConfig.builder("x").latencySampleEvery(3));
        assertThrows(IllegalArgumentException.class, () -> PumpConfig.builder("x").stallThreshold(Duration.ofMillis(1)));
        assertThrows(IllegalArgumentException.class, () -> PumpConfig.builder("x").spinBudget(Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> PumpConfig.builder("x").maxNestingDepth(0));
        assertNotNull(PumpConfig.builder("x").spinBudget(Duration.ZERO).stallThreshold(Duration.ZERO).build());
    }

    @Test
    void hugeDelaysAreClampedNotOverflowed() throws Exception {
        MessagePump p = pump();
        PumpTimer t = p.schedule(() -> { throw new AssertionError("fired"); }, Duration.ofDays(365 * 300));
        onPump(p, () -> assertEquals(1, p.getMetrics().pendingTimers()));
        assertTrue(t.isPending());
        assertTrue(t.cancel());
        assertEquals(0, p.getMetrics().pendingTimers());
    }
}
