package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A blocking {@code join()} on an {@link OutcomeCell} (the waits of the sync primitives): the first
 * joiner waits in the cell's slot, without a callback, and is unparked by the decision; a second
 * joiner at the same time waits through a callback; every exit (value, failure, cancellation,
 * interrupt) is as before, and no decision racing a join is lost.
 */
class JoinerSlotTest {

    private static final long BOUND_SECONDS = 10;

    /** A cell decided from outside, as a sync primitive's grant decides its wait. */
    private static final class Cell extends OutcomeCell<String> {
        boolean settle(Outcome<String> o) {
            return decide(o);
        }
    }

    @Test
    void theFirstJoinerWaitsWithoutACallbackAndGetsTheValue() throws Exception {
        Cell cell = new Cell();
        CompletableFuture<Object> joined = joinInThread(cell, false);
        awaitParked(joined);
        assertEquals(0, cell.retainedCallbacks(), "the joiner is in the slot, not in the callback stack");
        assertTrue(cell.settle(new Outcome.Success<>("v")));
        assertEquals("v", joined.get(BOUND_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void aSecondJoinerAtTheSameTimeWaitsThroughACallbackAndBothGetTheValue() throws Exception {
        Cell cell = new Cell();
        CompletableFuture<Object> first = joinInThread(cell, false);
        awaitParked(first);
        CompletableFuture<Object> second = joinInThread(cell, true);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (cell.retainedCallbacks() != 1) {
            assertTrue(System.nanoTime() < deadline, "the second joiner never registered its callback");
            Thread.sleep(1); // a poll interval: the loop re-checks
        }
        assertTrue(cell.settle(new Outcome.Success<>("v")));
        assertEquals("v", first.get(BOUND_SECONDS, TimeUnit.SECONDS));
        assertEquals("v", second.get(BOUND_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void failureAndCancellationReachTheParkedJoinerAsEveryJoinThrowsThem() throws Exception {
        Cell failed = new Cell();
        CompletableFuture<Object> joined = joinInThread(failed, false);
        awaitParked(joined);
        failed.settle(Outcome.ofError(new java.io.IOException("disk")));
        CompletionException e = assertInstanceOf(CompletionException.class, joined.get(BOUND_SECONDS, TimeUnit.SECONDS));
        assertEquals("disk", e.getCause().getMessage());

        Cell cancelled = new Cell();
        CompletableFuture<Object> joinedToo = joinInThread(cancelled, true);
        awaitParked(joinedToo);
        assertTrue(cancelled.cancel());
        assertInstanceOf(CancellationException.class, joinedToo.get(BOUND_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void anInterruptEndsTheWaitAndFreesTheSlotForTheNextJoin() throws Exception {
        Cell cell = new Cell();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                cell.join();
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        BriefWaitTest.awaitState(t, Thread.State.WAITING);
        t.interrupt();
        t.join(TimeUnit.SECONDS.toMillis(BOUND_SECONDS));
        assertInstanceOf(InterruptedException.class, thrown.get());
        assertEquals(0, cell.retainedCallbacks());

        CompletableFuture<Object> again = joinInThread(cell, true);
        awaitParked(again);
        assertEquals(0, cell.retainedCallbacks(), "the slot was emptied, so the next joiner takes it");
        cell.settle(new Outcome.Success<>("later"));
        assertEquals("later", again.get(BOUND_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void anInterruptBeforeTheJoinIsThrownAndCleared() {
        Cell cell = new Cell();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, cell::join);
        assertTrue(!Thread.interrupted(), "join() clears the status it reports");
    }

    @Test
    void noDecisionRacingAJoinIsLost() throws Exception {
        for (int round = 0; round < 20_000; round++) {
            Cell cell = new Cell();
            boolean virtual = (round & 1) == 0;
            CompletableFuture<Object> joined = joinInThread(cell, virtual);
            if ((round & 3) == 1) {
                Thread.onSpinWait(); // vary the moment of the decision against the join
            }
            cell.settle(new Outcome.Success<>("r"));
            assertEquals("r", joined.get(BOUND_SECONDS, TimeUnit.SECONDS), "round " + round);
        }
    }

    /** Joins {@code cell} in a new thread; the future completes with the value or what join threw. */
    private static CompletableFuture<Object> joinInThread(Cell cell, boolean virtual) {
        CompletableFuture<Object> joined = new CompletableFuture<>();
        Runnable body = () -> {
            try {
                joined.complete(cell.join());
            } catch (Throwable e) {
                joined.complete(e);
            }
        };
        Thread t = virtual ? Thread.ofVirtual().unstarted(body) : Thread.ofPlatform().unstarted(body);
        THREADS.set(t);
        t.start();
        return joined;
    }

    private static final ThreadLocal<Thread> THREADS = new ThreadLocal<>();

    /** Waits until the thread last started by {@link #joinInThread} is parked (or done). */
    private static void awaitParked(CompletableFuture<Object> joined) throws InterruptedException {
        Thread t = THREADS.get();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(BOUND_SECONDS);
        while (t.getState() != Thread.State.WAITING && !joined.isDone()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("still " + t.getState() + ", never parked");
            }
            Thread.sleep(1); // a poll interval, not synchronisation: the loop re-checks the state
        }
    }
}
