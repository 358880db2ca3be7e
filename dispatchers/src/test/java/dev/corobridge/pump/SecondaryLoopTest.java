package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** pumpUntil: the nested loop that keeps dispatching while pump code waits synchronously. */
class SecondaryLoopTest {

    private final MessagePump pump = MessagePump.start(PumpConfig.builder("nested").maxNestingDepth(3).build());

    @AfterEach
    void tearDown() throws Exception {
        stop(pump);
    }

    @Test
    void keepsDispatchingAndPreservesPerProducerOrder() throws Exception {
        List<Integer> seen = new ArrayList<>();
        int n = 10_000;
        boolean done = onPump(pump, () -> {
            Thread producer = new Thread(() -> {
                for (int i = 0; i < n; i++) {
                    int v = i;
                    pump.execute(() -> seen.add(v));
                }
            });
            producer.start();
            return pump.pumpUntil(() -> seen.size() == n, Duration.ofSeconds(30));
        });
        assertTrue(done);
        for (int i = 0; i < n; i++) {
            assertEquals(i, seen.get(i));
        }
    }

    @Test
    void waitsForAStageCompletedOnAnotherThread() throws Exception {
        String v = onPump(pump, () -> {
            CompletableFuture<String> f = new CompletableFuture<>();
            new Thread(() -> f.complete("value")).start();
            AtomicBoolean otherRan = new AtomicBoolean();
            pump.execute(() -> otherRan.set(true));
            String r = pump.pumpUntil(f, Duration.ofSeconds(30));
            return r + "/" + otherRan.get() + "/" + pump.isCurrentThread();
        });
        assertTrue(v.startsWith("value/"), v);
        assertTrue(v.endsWith("/true"), v);
    }

    @Test
    void stageFailureTimeoutAndConditionTimeout() throws Exception {
        onPump(pump, () -> {
            CompletableFuture<String> failed = CompletableFuture.failedFuture(new IllegalStateException("bad"));
            CompletionException e = assertThrows(CompletionException.class, () -> pump.pumpUntil(failed, Duration.ofSeconds(1)));
            assertEquals("bad", e.getCause().getMessage());
            assertThrows(TimeoutException.class, () -> pump.pumpUntil(new CompletableFuture<>(), Duration.ofMillis(20)));
            assertFalse(pump.pumpUntil(() -> false, Duration.ofMillis(20)));
            CompletableFuture<String> cancelled = new CompletableFuture<>();
            cancelled.cancel(false);
            assertThrows(java.util.concurrent.CancellationException.class, () -> pump.pumpUntil(cancelled, Duration.ofSeconds(1)));
        });
    }

    @Test
    void timersFireInsideTheNestedLoop() throws Exception {
        boolean fired = onPump(pump, () -> {
            AtomicBoolean f = new AtomicBoolean();
            pump.schedule(() -> f.set(true), Duration.ofMillis(10));
            return pump.pumpUntil(f::get, Duration.ofSeconds(30));
        });
        assertTrue(fired);
    }

    @Test
    void nestingIsBoundedAndOffPumpCallsFail() throws Exception {
        AtomicInteger maxDepth = new AtomicInteger();
        java.util.concurrent.atomic.AtomicReference<IllegalStateException> error = new java.util.concurrent.atomic.AtomicReference<>();
        onPump(pump, () -> nest(1, maxDepth, error));
        assertEquals(3, maxDepth.get(), "nested loops that ran");
        IllegalStateException e = error.get();
        assertTrue(e != null && e.getMessage().contains("maxNestingDepth=3"), String.valueOf(e));
        PumpAffinityException off = assertThrows(PumpAffinityException.class,
                () -> pump.pumpUntil(() -> true, Duration.ofSeconds(1)));
        assertTrue(off.getMessage().contains("nested"), off.getMessage());
    }

    /** Level k posts a task that runs inside level k's loop and opens level k + 1. */
    private void nest(int level, AtomicInteger maxDepth, java.util.concurrent.atomic.AtomicReference<IllegalStateException> error) {
        AtomicBoolean inner = new AtomicBoolean();
        pump.execute(() -> {
            if (error.get() == null) {
                maxDepth.accumulateAndGet(level, Math::max); // running inside level's loop
                nest(level + 1, maxDepth, error);
            }
            inner.set(true);
        });
        try {
            pump.pumpUntil(inner::get, Duration.ofSeconds(30));
        } catch (IllegalStateException e) {
            error.compareAndSet(null, e);
        }
    }

    @Test
    void aStallInsideTheNestedLoopIsNotBlamedOnTheWaiter() throws Exception {
        // The waiting task is dispatching, not stalled: its sequence number is even while it pumps.
        long before = pump.taskSequence();
        onPump(pump, () -> {
            assertEquals(1, pump.taskSequence() & 1, "odd while a task runs");
            pump.pumpUntil(() -> {
                return (pump.taskSequence() & 1) == 0;
            }, Duration.ofSeconds(1));
        });
        assertTrue(pump.taskSequence() > before);
    }
}
