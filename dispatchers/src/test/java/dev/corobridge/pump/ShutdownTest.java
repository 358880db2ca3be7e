package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static dev.corobridge.pump.PumpTestSupport.blockWithATask;
import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

import dev.corobridge.bridge.ContextShutdownException;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Task;

/** Java-side shutdown paths: rejection after termination, reports, and every way to stop. */
class ShutdownTest {

    /**
     * Once {@code awaitTermination} has returned true, every future {@code shutdown} and
     * {@code termination} handed out is complete: a caller may look at it next. They were copies
     * that the termination completed through dependent actions, which could still be running when a
     * woken waiter returned; many rounds, as it was a race.
     */
    @Test
    void everyTerminationFutureIsCompleteOnceAwaitTerminationReturns() throws Exception {
        for (int round = 0; round < 10_000; round++) {
            MessagePump pump = MessagePump.start("terminated-" + round);
            CompletableFuture<ShutdownReport> first = pump.termination();
            CompletableFuture<ShutdownReport> second = pump.shutdown(Duration.ZERO);
            assertTrue(pump.awaitTermination(WAIT), "round " + round);
            assertTrue(first.isDone() && second.isDone(), "round " + round + ": a termination future not complete yet");
            assertTrue(pump.termination().isDone(), "round " + round + ": a termination future taken after it");
        }
    }

    @Test
    void afterTerminationPostsAreRejectedNeverDropped() throws Exception {
        MessagePump p = MessagePump.start("rejecting");
        ShutdownReport report = stop(p);
        assertTrue(report.isClean(), report.toString());
        assertTrue(p.isTerminated());
        AtomicBoolean ran = new AtomicBoolean();
        assertFalse(p.deliver(() -> ran.set(true)));
        RejectedExecutionException e = assertThrows(RejectedExecutionException.class, () -> p.execute(() -> ran.set(true)));
        assertTrue(e.getMessage().contains("rejecting"), e.getMessage());
        assertThrows(RejectedExecutionException.class, () -> p.schedule(() -> ran.set(true), Duration.ofMillis(1)));
        assertThrows(RejectedExecutionException.class,
                () -> CompletableFuture.runAsync(() -> ran.set(true), p).join());
        assertFalse(ran.get());
    }

    @Test
    void tasksPostedBeforeShutdownStillRun() throws Exception {
        MessagePump p = MessagePump.start("drain");
        CountDownLatch block = new CountDownLatch(1);
        AtomicBoolean later = new AtomicBoolean();
        p.execute(() -> {
            try {
                block.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        p.execute(() -> later.set(true));
        CompletableFuture<ShutdownReport> f = p.shutdown();
        assertTrue(p.isShutdown());
        p.execute(() -> { }); // still accepted while shutting down: would throw otherwise
        block.countDown();
        ShutdownReport r = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(later.get());
        assertTrue(r.isClean(), r.toString());
    }

    @Test
    void pendingDelayedTasksAreReportedAsAbandoned() throws Exception {
        MessagePump p = MessagePump.start("delayed");
        PumpTimer t = p.schedule(() -> { }, Duration.ofHours(1));
        onPump(p, () -> { });
        ShutdownReport r = stop(p);
        assertTrue(r.graceful());
        assertEquals(1, r.abandonedTimers());
        assertFalse(r.isClean());
        assertEquals(PumpTimer.State.ABANDONED, t.getState());
        assertTrue(r.toString().contains("1 delayed tasks"), r.toString());
    }

    @Test
    void shutdownNowAbandonsQueuedWorkAndReturnsIt() throws Exception {
        MessagePump p = MessagePump.start("now");
        CountDownLatch release = blockWithATask(p);
        Runnable queued = () -> { throw new AssertionError("abandoned task ran"); };
        p.execute(queued);
        CompletableFuture<ShutdownReport> f = p.shutdownNow();
        release.countDown();
        ShutdownReport r = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertFalse(r.graceful());
        assertEquals(1, r.abandonedTasks().size());
        assertTrue(r.abandonedTasks().contains(queued));
    }

    /**
     * The deadline passed while the pump was busy: the work still queued is abandoned (reported,
     * never run) and the shutdown is not graceful. It used to run that work after the deadline and
     * report a graceful shutdown, because the loop cancelled the coroutines (phase 1) only once the
     * task ended and then gave phase 2 one more iteration, whatever the time.
     */
    @Test
    void workStillQueuedWhenTheDeadlinePassesIsAbandonedNotRun() throws Exception {
        MessagePump p = MessagePump.start("late");
        CountDownLatch release = blockWithATask(p);
        AtomicBoolean ran = new AtomicBoolean();
        Runnable queued = () -> ran.set(true);
        p.execute(queued);
        long asked = System.nanoTime();
        CompletableFuture<ShutdownReport> f = p.shutdown(Duration.ofMillis(50));
        while (System.nanoTime() - asked < Duration.ofMillis(150).toNanos()) {
            Thread.sleep(10); // the deadline passes while the pump is still in the task
        }
        release.countDown();
        ShutdownReport r = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertFalse(ran.get(), "queued work ran after the deadline");
        assertFalse(r.graceful(), r.toString());
        assertEquals(List.of(queued), r.abandonedTasks(), r.toString());
    }

    /**
     * A {@code schedule} timer that fell due while a task ran past the deadline is abandoned and
     * counted, as queued work is: it ran after the deadline (the loop took due timers without
     * looking at the deadline).
     */
    @Test
    void aTimerDueWhileATaskRanPastTheDeadlineIsAbandonedNotRun() throws Exception {
        MessagePump p = MessagePump.start("late-timer");
        AtomicBoolean ran = new AtomicBoolean();
        p.schedule(() -> ran.set(true), Duration.ofMillis(100)); // on the timer heap before the task below runs
        CountDownLatch release = blockWithATask(p);
        long asked = System.nanoTime();
        CompletableFuture<ShutdownReport> f = p.shutdown(Duration.ofMillis(50));
        while (System.nanoTime() - asked < Duration.ofMillis(150).toNanos()) {
            Thread.sleep(10); // the timer falls due and the deadline passes while the pump is in the task
        }
        release.countDown();
        ShutdownReport r = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertFalse(ran.get(), "a due timer ran after the deadline");
        assertFalse(r.graceful(), r.toString());
        assertEquals(1, r.abandonedTimers(), r.toString());
    }

    /**
     * A task in a nested loop ({@code pumpUntil}) when the deadline passes is a running task: the
     * deadline does not interrupt it, so its loop goes on dispatching what it waits for (it
     * spun without running anything until its own timeout).
     */
    @Test
    void aNestedLoopRunningWhenTheDeadlinePassesGoesOnDispatching() throws Exception {
        MessagePump p = MessagePump.start("nested-late");
        CountDownLatch inLoop = new CountDownLatch(1);
        AtomicBoolean flag = new AtomicBoolean();
        CompletableFuture<Boolean> waited = new CompletableFuture<>();
        p.execute(() -> {
            inLoop.countDown();
            waited.complete(p.pumpUntil(flag::get, Duration.ofSeconds(30)));
        });
        assertTrue(inLoop.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        long asked = System.nanoTime();
        CompletableFuture<ShutdownReport> f = p.shutdown(Duration.ofMillis(50));
        while (System.nanoTime() - asked < Duration.ofMillis(150).toNanos()) {
            Thread.sleep(10); // the deadline passes while the task waits in its nested loop
        }
        p.execute(() -> flag.set(true));
        assertTrue(waited.get(10, TimeUnit.SECONDS), "the nested loop ran what it waited for");
        ShutdownReport r = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(r.abandonedTasks().isEmpty(), r.toString());
    }

    /** A pump with nothing left when it sees the deadline passed shuts down gracefully, even at once. */
    @Test
    void anIdlePumpShutsDownGracefullyWithNoGracePeriod() throws Exception {
        for (int round = 0; round < 200; round++) {
            MessagePump p = MessagePump.start("idle-" + round);
            onPump(p, () -> { });
            ShutdownReport r = p.shutdown(Duration.ZERO).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(r.isClean(), "round " + round + ": " + r);
        }
    }

    @Test
    void tasksWhoseStepsShutdownNowDropsAreCancelledNotLeftPending() throws Exception {
        MessagePump p = MessagePump.start("now-tasks");
        CountDownLatch release = blockWithATask(p);
        Task<Integer> started = Task.start(p, () -> 7);
        Task<Integer> stage = Task.completed(1).thenOn(p, v -> v + 1);
        CompletableFuture<ShutdownReport> f = p.shutdownNow();
        release.countDown();
        ShutdownReport r = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(2, r.abandonedTasks().size(), r.toString());
        for (Task<Integer> t : List.of(started, stage)) {
            CancellationException e = assertThrows(CancellationException.class, () -> t.join(WAIT));
            assertTrue(e instanceof ContextShutdownException, String.valueOf(e));
            assertTrue(t.outcomeOrNull() instanceof Outcome.Cancelled<Integer> c && c.cause() instanceof PumpShutdownException,
                    String.valueOf(t.outcomeOrNull()));
        }
    }

    @Test
    void aTaskPostedToAPumpThatNeverRanIsCancelledWhenItShutsDown() throws Exception {
        MessagePump p = MessagePump.create("never-ran-task");
        Task<Integer> started = Task.start(p, () -> 1);
        ShutdownReport r = p.shutdown().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(1, r.abandonedTasks().size());
        assertThrows(ContextShutdownException.class, () -> started.join(WAIT));
    }

    @Test
    void aPumpThatNeverRanTerminatesAtOnceAndReportsWhatWasPosted() throws Exception {
        MessagePump p = MessagePump.create("never-ran");
        p.execute(() -> { });
        ShutdownReport r = p.shutdown().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertFalse(r.graceful());
        assertEquals(1, r.abandonedTasks().size());
        assertThrows(IllegalStateException.class, p::runLoop);
    }

    @Test
    void aPumpThatNeverRanWithNothingPostedShutsDownGracefully() throws Exception {
        MessagePump p = MessagePump.create("never-ran-empty");
        ShutdownReport r = p.shutdown().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(r.graceful(), r.toString());
        assertTrue(r.isClean(), r.toString());
        MessagePump q = MessagePump.create("never-ran-now");
        ShutdownReport now = q.shutdownNow().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertFalse(now.graceful(), "shutdownNow() is not graceful: " + now);
    }

    /**
     * Code that runs on the pump while a forced shutdown settles what it left (here a dropped task's
     * callback) and schedules a timer then: the timers have been settled already, so the timer is
     * refused, not accepted and then never run nor reported.
     */
    @Test
    void aTimerScheduledWhileAForcedShutdownSettlesIsRefusedNotLost() throws Exception {
        MessagePump p = MessagePump.start("settling-timer");
        CountDownLatch release = blockWithATask(p);
        CompletableFuture<Object> scheduled = new CompletableFuture<>();
        Task.start(p, () -> 1).onComplete(o -> {
            try {
                scheduled.complete(p.schedule(() -> { }, Duration.ofMillis(10)));
            } catch (Throwable e) {
                scheduled.complete(e);
            }
        });
        CompletableFuture<ShutdownReport> f = p.shutdownNow();
        release.countDown();
        ShutdownReport r = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        Object result = scheduled.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(result instanceof RejectedExecutionException, "schedule() during the settlement returned " + result
                + "; " + r + "; pending timers " + p.getMetrics().pendingTimers());
        assertEquals(0, p.getMetrics().pendingTimers());
    }

    @Test
    void awaitTerminationAndCloseRefuseToWaitOnThePumpThread() throws Exception {
        MessagePump p = MessagePump.start("self-wait");
        IllegalStateException e = onPump(p, () -> {
            try {
                p.awaitTermination(Duration.ofSeconds(1));
                return null;
            } catch (IllegalStateException ex) {
                return ex;
            }
        });
        assertTrue(e != null && e.getMessage().contains("would wait for itself"), String.valueOf(e));
        assertFalse(p.awaitTermination(Duration.ofMillis(10)));
        p.close();
        assertTrue(p.isTerminated());
        assertTrue(p.awaitTermination(Duration.ZERO));
    }

    /** A null timeout or grace period is named, as every other argument is. */
    @Test
    void nullDurationsAreNamed() throws Exception {
        MessagePump p = MessagePump.start("nulls");
        try {
            assertEquals("timeout", assertThrows(NullPointerException.class, () -> p.awaitTermination(null)).getMessage());
            assertEquals("timeout", assertThrows(NullPointerException.class,
                    () -> p.pumpUntil(CompletableFuture.completedFuture(1), null)).getMessage());
            assertEquals("gracePeriod", assertThrows(NullPointerException.class, () -> p.shutdown(null)).getMessage());
        } finally {
            stop(p);
        }
    }

    @Test
    void aSecondShutdownNeverExtendsTheDeadline() throws Exception {
        MessagePump p = MessagePump.start("twice");
        CompletableFuture<ShutdownReport> a = p.shutdown(Duration.ofSeconds(5));
        CompletableFuture<ShutdownReport> b = p.shutdown(Duration.ofSeconds(60));
        assertEquals(a.get(WAIT.toSeconds(), TimeUnit.SECONDS), b.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> p.shutdown(Duration.ofSeconds(-1)));
    }
}
