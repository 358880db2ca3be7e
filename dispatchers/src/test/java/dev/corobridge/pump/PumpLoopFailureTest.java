package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static dev.corobridge.pump.PumpTestSupport.onPump;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The loop itself fails (not a task: tasks' failures are reported and the loop goes on): the pump
 * terminates anyway, nothing waits forever, and {@link MessagePump#awaitTermination} says that the
 * termination failed. The failure is injected through the pump's clock, which the loop reads on
 * every idle re-check.
 */
class PumpLoopFailureTest {

    /** What the injected clock throws: an error of the loop's own machinery. */
    static final class LoopBug extends Error {
        LoopBug(String message) {
            super(message);
        }
    }

    /** The system clock until armed; then it throws, {@code times} times. */
    static final class FailingClock implements PumpClock {
        private volatile int failures;

        void failNext(int times) {
            failures = times;
        }

        @Override
        public long nanoTime() {
            int left = failures;
            if (left > 0) {
                failures = left - 1;
                throw new LoopBug("clock broke (" + left + " left)");
            }
            return System.nanoTime();
        }
    }

    /** Starts {@code pump}'s loop on a thread of its own; the future gets what escaped {@code runLoop()}. */
    private static CompletableFuture<Throwable> runLoop(MessagePump pump) {
        CompletableFuture<Throwable> escaped = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                pump.runLoop();
                escaped.complete(null);
            } catch (Throwable e) {
                escaped.complete(e);
            }
        }, pump.getName());
        t.setDaemon(true);
        t.start();
        return escaped;
    }

    private static MessagePump pump(String name, FailingClock clock) {
        // No latency sampling: the posting thread would read the (failing) clock too.
        return new MessagePump(PumpConfig.builder(name).latencySampleEvery(0).stallThreshold(Duration.ZERO)
                .build(), clock);
    }

    @Test
    void aLoopThatDiesTerminatesThePumpAndAwaitTerminationReportsTheFailure() throws Exception {
        FailingClock clock = new FailingClock();
        MessagePump p = pump("dying-loop", clock);
        CompletableFuture<Throwable> escaped = runLoop(p);
        onPump(p, () -> { });
        // Armed by a task on the pump, not from here: the loop reads the clock whenever it goes idle,
        // so arming from this thread could kill it before a wake-up post, which would be rejected.
        // The loop's own idle re-check after this task is the next read.
        p.execute(() -> clock.failNext(1));

        Throwable e = escaped.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(e instanceof LoopBug, "runLoop() must rethrow what killed it, got " + e);
        assertFalse(p.awaitTermination(WAIT), "termination failed: awaitTermination must say so");
        assertTrue(p.isTerminated());
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> p.termination().get(WAIT.toSeconds(), TimeUnit.SECONDS));
        PumpLoopFailedException loopFailed = assertInstanceOf(PumpLoopFailedException.class, failed.getCause());
        assertSame(e, loopFailed.getCause(), "the error that killed the loop is the cause");
        assertEquals("dying-loop", loopFailed.pumpName());
        assertNotNull(loopFailed.report(), "settling worked: what was abandoned is reported");
        assertFalse(loopFailed.report().graceful());
        assertTrue(loopFailed.getMessage().contains("dying-loop"), loopFailed.getMessage());
        assertThrows(RejectedExecutionException.class, () -> p.execute(() -> { }), "a dead pump must reject work");
        assertThrows(RejectedExecutionException.class, () -> p.execute(() -> { }));
        // shutdown() after the fact returns the same failed termination.
        assertTrue(p.shutdown().isCompletedExceptionally());
    }

    @Test
    void aTerminationThatFailsStillCompletesAndRejectsPosts() throws Exception {
        FailingClock clock = new FailingClock();
        MessagePump p = pump("failing-termination", clock);
        CompletableFuture<Throwable> escaped = runLoop(p);
        CountDownLatch inTask = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        p.execute(() -> {
            inTask.countDown();
            awaitQuietly(release);
        });
        assertTrue(inTask.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        p.shutdown();
        clock.failNext(Integer.MAX_VALUE); // the orderly termination's own bookkeeping fails now
        release.countDown();

        Throwable e = escaped.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(e instanceof LoopBug, String.valueOf(e));
        assertFalse(p.awaitTermination(WAIT));
        assertTrue(p.termination().isCompletedExceptionally(), "termination() must not stay pending forever");
        assertTrue(p.isTerminated());
        assertThrows(RejectedExecutionException.class, () -> p.execute(() -> { }), "a dead pump must reject work");
        ExecutionException failed = assertThrows(ExecutionException.class,
                () -> p.termination().get(WAIT.toSeconds(), TimeUnit.SECONDS));
        PumpLoopFailedException loopFailed = assertInstanceOf(PumpLoopFailedException.class, failed.getCause());
        assertSame(e, loopFailed.getCause());
        assertNull(loopFailed.report(), "the report itself could not be made");
    }

    @Test
    void anOrderlyShutdownIsNotAFailure() throws Exception {
        MessagePump p = pump("orderly", new FailingClock());
        CompletableFuture<Throwable> escaped = runLoop(p);
        onPump(p, () -> { });
        p.shutdown();
        assertTrue(p.awaitTermination(WAIT));
        assertTrue(p.termination().get(WAIT.toSeconds(), TimeUnit.SECONDS).isClean());
        assertSame(null, escaped.get(WAIT.toSeconds(), TimeUnit.SECONDS));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
