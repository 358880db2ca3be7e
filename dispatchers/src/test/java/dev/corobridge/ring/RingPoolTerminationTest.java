package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12, item 6: {@link RingPool#awaitTermination} returns {@code false} when termination
 * failed, not only when its timeout passed, and the termination future says why. Each failure is
 * staged without timing: a ring thread kept busy through the shutdown, a fallback call that closing
 * its file cannot end (opening a pipe that has no writer).
 */
@SuppressWarnings("deprecation")
class RingPoolTerminationTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cleanTerminationIsTrue(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        CompletableFuture<Void> done = pool.shutdown(Duration.ZERO);
        assertTrue(pool.awaitTermination(Duration.ofMinutes(2)));
        done.get(0, TimeUnit.SECONDS);
    }

    /**
     * Once {@code awaitTermination} has returned (or {@code isTerminated} says so), every future
     * {@code shutdown} handed out is complete, and once one is complete the pool says it terminated:
     * a caller may look at either next. The futures were copies that the termination completed
     * through dependent actions, which could still be running when a woken waiter returned; many
     * rounds, as it was a race.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void everyShutdownFutureIsCompleteOnceTerminationIsSeen(Transport transport) throws Exception {
        for (int round = 0; round < 1_000; round++) {
            RingPool pool = pool(transport);
            CompletableFuture<Void> first = pool.shutdown(Duration.ZERO);
            CompletableFuture<Void> second = pool.shutdown(Duration.ZERO);
            switch (round % 3) {
                case 0 -> assertTrue(pool.awaitTermination(Duration.ofMinutes(2)), "round " + round);
                case 1 -> waitUntil(pool::isTerminated, "termination");
                default -> { // the other way round: a complete future means a terminated pool
                    second.get(2, TimeUnit.MINUTES);
                    assertTrue(pool.isTerminated() && pool.awaitTermination(Duration.ZERO), "round " + round + ": not terminated yet");
                }
            }
            assertTrue(first.isDone() && second.isDone(), "round " + round + ": a shutdown future not complete yet");
            assertTrue(pool.shutdown(Duration.ZERO).isDone(), "round " + round + ": a shutdown after termination");
        }
    }

    /**
     * A grace period too long for a {@code long} of nanoseconds (the builder takes any length, and
     * {@code shutdown(Duration)} any duration) is a deadline that never comes, not an overflow: the
     * shutdown threw {@code ArithmeticException} after it had begun, and the pool never terminated
     * (its threads stayed). An idle pool terminates at once whatever its grace period; {@code close()}
     * too, which waits the grace period plus 15 s.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aGracePeriodOfAnyLengthShutsAnIdlePoolDown(Transport transport) throws Exception {
        Duration[] periods = {Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), Duration.ofSeconds(Long.MAX_VALUE / 1_000),
                Duration.ofDays(3650)};
        for (Duration period : periods) {
            RingPool configured = RingPool.start(RingPoolConfig.builder().name("long-grace").rings(1)
                    .forceFallback(transport == Transport.FALLBACK).shutdownGracePeriod(period).build());
            CompletableFuture<Void> done = configured.shutdown();
            assertTrue(configured.awaitTermination(Duration.ofMinutes(2)), "configured " + period);
            done.get(0, TimeUnit.SECONDS);

            RingPool given = pool(transport);
            given.shutdown(period).get(2, TimeUnit.MINUTES);
            assertTrue(given.isTerminated(), "given " + period);

            RingPool closed = RingPool.start(RingPoolConfig.builder().name("long-grace-close").rings(1)
                    .forceFallback(transport == Transport.FALLBACK).shutdownGracePeriod(period).build());
            closed.close();
            assertTrue(closed.isTerminated(), "closed " + period);
        }
    }

    /** A negative grace period is refused before anything is shut down, as the pump refuses it. */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aNegativeGracePeriodIsRefusedAndChangesNothing(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.shutdown(Duration.ofSeconds(-1)));
        assertTrue(e.getMessage().contains("gracePeriod must not be negative, was PT-1S"), e.getMessage());
        assertFalse(pool.isShutdown(), "refused, yet shut down");
        pool.shutdown(Duration.ZERO).get(2, TimeUnit.MINUTES);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void awaitTerminationIsFalseWhenTheLoopsDidNotStop(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        LoopHold hold = new LoopHold(pool, pool.getRings().get(1)); // ring 0's thread stays busy
        try {
            CompletableFuture<Void> done = pool.shutdown(Duration.ZERO);
            // Far longer than termination takes (the loops get 10 s): false here means "failed".
            assertFalse(pool.awaitTermination(Duration.ofMinutes(2)), "a loop that did not stop is no clean termination");
            assertTrue(pool.isTerminated(), "terminated, not timed out");
            RingPoolTerminationException e = failure(done);
            assertTrue(e.problems().stream().anyMatch(p -> p.contains("event loops did not stop")), e.getMessage());
            assertFalse(hold.expired());
        } finally {
            hold.close();
        }
    }

    @Test
    void awaitTerminationIsFalseWhenAnOperationWasLeftInFlight() throws Exception {
        RingPool pool = pool(Transport.FALLBACK);
        Path fifo = RingTestSupport.fifo(dir, "no-writer.fifo");
        // Opening a pipe for reading blocks until a writer comes, and there is no file to close yet.
        RingOp<RingFile> open = pool.openAsync(fifo, StandardOpenOption.READ);
        waitUntil(open::started, "the open to block");
        try {
            CompletableFuture<Void> done = pool.shutdown(Duration.ZERO);
            assertFalse(pool.awaitTermination(Duration.ofMinutes(2)));
            assertTrue(pool.isTerminated(), "terminated, not timed out");
            RingPoolTerminationException e = failure(done);
            assertTrue(e.problems().stream().anyMatch(p -> p.contains("1 operation was still in flight")), e.getMessage());
        } finally {
            try (RandomAccessFile w = new RandomAccessFile(fifo.toFile(), "rw")) {
                w.write(1); // lets the open finish: the file it opens is closed (the pool is gone)
            }
        }
        assertInstanceOf(dev.corobridge.bridge.ContextShutdownException.class,
                RingSocketTest.causeOf(() -> await(open)));
    }

    @Test
    void awaitTerminationOnARingThreadIsRefused() throws Exception {
        RingPool pool = pool(Transport.IO_URING);
        try {
            CompletableFuture<Throwable> refused = new CompletableFuture<>();
            pool.getRings().get(0).execute(() -> {
                try {
                    pool.awaitTermination(Duration.ofSeconds(1));
                    refused.complete(null);
                } catch (Throwable t) {
                    refused.complete(t);
                }
            });
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, refused.get(30, TimeUnit.SECONDS));
            assertTrue(e.getMessage().contains("would wait for itself"), e.getMessage());
        } finally {
            RingTestSupport.stop(pool);
        }
    }

    private static RingPoolTerminationException failure(CompletableFuture<Void> done) {
        // A copy of the termination: it completes with it, possibly an instant after awaitTermination returned.
        ExecutionException e = assertThrows(ExecutionException.class, () -> done.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(RingPoolTerminationException.class, e.getCause());
    }
}
