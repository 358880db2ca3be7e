package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Task from Java: start, compose, wait, cancel, ownership, exceptions that travel, interop. */
class TaskTest {

    private final ExecutorService ui = Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-ui"));
    private final ExecutorService io = Executors.newSingleThreadExecutor(r -> new Thread(r, "fake-io"));
    private final ExecutorService cpu = Executors.newFixedThreadPool(2, r -> new Thread(r, "fake-cpu"));

    @AfterEach
    void tearDown() {
        ui.shutdownNow();
        io.shutdownNow();
        cpu.shutdownNow();
        Tasks.resetUncaughtFailureHandler();
    }

    /** An executor that throws something else than a rejection: the stage fails with it, instead of staying pending. */
    @Test
    void aStageWhoseExecutorThrowsFailsWithWhatItThrew() throws Exception {
        IllegalStateException closed = new IllegalStateException("closed");
        java.util.concurrent.Executor broken = r -> {
            throw closed;
        };
        Promise<Integer> later = new Promise<>();
        List<Task<Integer>> stages = List.of(Task.completed(1).thenOn(broken, v -> v), Task.from(later).thenOn(broken, v -> v));
        later.complete(1);
        for (Task<Integer> stage : stages) {
            Outcome<Integer> o = awaitOutcome(stage);
            assertTrue(o instanceof Outcome.Failure<Integer> f && f.error() == closed, String.valueOf(o));
        }
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> Task.start(broken, () -> 1));
        assertSame(closed, thrown, "Task.start still throws it to its caller");
    }

    private static <T> Outcome<T> awaitOutcome(Task<T> t) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        t.onComplete(o -> done.countDown());
        if (!done.await(10, TimeUnit.SECONDS)) {
            fail("still pending after 10 s: " + t);
        }
        return t.outcomeOrNull();
    }

    /** A long chain's names stay short: each stage's name was its parent's plus one hop (quadratic memory). */
    @Test
    void aLongChainsStageNamesStayBounded() {
        Task<Integer> t = Task.completed(0);
        for (int i = 0; i < 1_000; i++) {
            t = t.thenOn(Runnable::run, v -> v + 1);
        }
        String name = t.toString();
        assertTrue(name.length() < 400, () -> name.length() + " characters: " + name.substring(0, 200));
    }

    /** Cancelling a task of a stage that is no Future's (a minimal stage) cancels the task and reports nothing. */
    @Test
    void cancellingATaskOfAMinimalCompletionStageReportsNoError() throws Exception {
        List<Throwable> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
        var previous = Tasks.uncaughtFailureHandler();
        Tasks.setUncaughtFailureHandler((task, e) -> reported.add(e));
        try {
            CompletableFuture<Integer> f = new CompletableFuture<>();
            Task<Integer> t = Task.from(f.minimalCompletionStage());
            assertTrue(t.cancel());
            assertTrue(t.outcomeOrNull() instanceof Outcome.Cancelled<Integer>, String.valueOf(t));
            assertEquals(List.of(), reported);
        } finally {
            Tasks.setUncaughtFailureHandler(previous);
        }
    }

    /**
     * The CompletableFuture view's cancel() tells the truth when it races the task's completion:
     * true only if the task was cancelled, never a cancelled view beside a task that kept its value.
     */
    @Test
    void theFutureViewsCancelAgreesWithTheTaskInARace() throws Exception {
        ExecutorService racer = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < 20_000; round++) {
                Promise<Integer> p = new Promise<>();
                Task<Integer> t = Task.from(p);
                CompletableFuture<Integer> view = t.toCompletableFuture();
                CountDownLatch go = new CountDownLatch(1);
                var completing = racer.submit(() -> {
                    go.await();
                    return p.complete(1);
                });
                go.countDown();
                boolean cancelled = view.cancel(true);
                completing.get();
                awaitOutcome(t);
                assertEquals(cancelled, t.outcomeOrNull() instanceof Outcome.Cancelled<Integer>, "round " + round + ": view.cancel() " + cancelled + ", task " + t);
                assertEquals(cancelled, view.isCancelled(), "round " + round);
            }
        } finally {
            racer.shutdownNow();
        }
    }

    /**
     * A limited task's cancel() that wins against its own timer (the limit passes while the cancel
     * is deciding): cancel() returned true, so the result is cancelled, not the timeout failure.
     * The source here lets the timer's cancellation arrive while the caller's is deciding, then
     * lets the caller's win: the interleaving a race hits now and then.
     */
    @Test
    void aLimitedTaskWhoseCancelWinsAgainstItsTimerIsCancelled() throws Exception {
        Promise<Integer> inner = new Promise<>();
        CountDownLatch timerCancels = new CountDownLatch(1);
        CountDownLatch callerDecided = new CountDownLatch(1);
        final class Gated implements Awaitable<Integer>, dev.corobridge.bridge.internal.CauseCancellable {
            @Override
            public boolean isDone() {
                return inner.isDone();
            }

            @Override
            public Outcome<Integer> outcomeOrNull() {
                return inner.outcomeOrNull();
            }

            @Override
            public Registration onComplete(java.util.function.Consumer<? super Outcome<Integer>> callback) {
                return inner.onComplete(callback);
            }

            @Override
            public boolean cancel() {
                return cancel(new CancellationException("cancelled"));
            }

            @Override
            public boolean cancel(CancellationException cause) {
                try {
                    if (cause.getCause() instanceof TaskTimeoutException) { // the timer's
                        timerCancels.countDown();
                        callerDecided.await(10, TimeUnit.SECONDS);
                        return inner.cancel(cause);
                    }
                    timerCancels.await(10, TimeUnit.SECONDS); // the caller's: decides once the timer is in
                    boolean r = inner.cancel(cause);
                    callerDecided.countDown();
                    return r;
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        Task<Integer> limited = Task.from(new Gated()).withTimeout(Duration.ofMillis(50));
        CancellationException mine = new CancellationException("mine");
        assertTrue(limited.cancel(mine));
        Outcome<Integer> o = awaitOutcome(limited);
        assertTrue(o instanceof Outcome.Cancelled<Integer> c && c.cause() == mine, "cancel() returned true, the outcome is " + o);
    }

    /** Two threads detaching one task at once: a failure is reported once. */
    @Test
    void aTaskDetachedTwiceAtOnceReportsItsFailureOnce() throws Exception {
        java.util.concurrent.atomic.AtomicInteger reports = new java.util.concurrent.atomic.AtomicInteger();
        var previous = Tasks.uncaughtFailureHandler();
        Tasks.setUncaughtFailureHandler((task, e) -> reports.incrementAndGet());
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            int rounds = 20_000;
            for (int round = 0; round < rounds; round++) {
                Promise<Integer> p = new Promise<>();
                Task<Integer> t = Task.from(p);
                java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
                var a = two.submit(() -> start.await() >= 0 && t.detach() == t);
                var b = two.submit(() -> start.await() >= 0 && t.detach() == t);
                a.get();
                b.get();
                p.fail(new IllegalStateException("round " + round));
            }
            assertEquals(rounds, reports.get());
        } finally {
            two.shutdownNow();
            Tasks.setUncaughtFailureHandler(previous);
        }
    }

    @Test
    void eachStageRunsOnTheContextItNames() throws Exception {
        List<String> threads = new ArrayList<>();
        String r = Task.start(io, () -> {
                    threads.add(Thread.currentThread().getName());
                    return "bytes";
                })
                .thenOn(ui, b -> {
                    threads.add(Thread.currentThread().getName());
                    return b + "+ui";
                })
                .thenOn(Dispatchers.getDefault(), s -> {
                    threads.add(Thread.currentThread().getName());
                    return s + "+default";
                })
                .thenOn(ui, s -> {
                    threads.add(Thread.currentThread().getName());
                    return s + "+ui";
                })
                .join(Duration.ofSeconds(30));
        assertEquals("bytes+ui+default+ui", r);
        assertEquals("fake-io", threads.get(0));
        assertEquals("fake-ui", threads.get(1));
        assertTrue(threads.get(2).startsWith("DefaultDispatcher-worker"), threads.get(2));
        assertEquals("fake-ui", threads.get(3), "a stage bound to ui runs there even after a pool thread");
    }

    @Test
    void composeRecoverAndFailuresSkipStages() throws Exception {
        AtomicBoolean skipped = new AtomicBoolean(true);
        Task<Integer> t = Task.start(io, () -> 2)
                .thenComposeOn(cpu, v -> Task.start(io, () -> v * 21))
                .thenOn(cpu, v -> {
                    if (v == 42) {
                        throw new IllegalStateException("boom at " + v);
                    }
                    return v;
                })
                .thenOn(ui, v -> {
                    skipped.set(false);
                    return v;
                });
        assertThrows(IllegalStateException.class, () -> t.join(Duration.ofSeconds(30)));
        assertTrue(skipped.get(), "a stage after a failure must not run");
        int recovered = t.recoverOn(ui, e -> e.getMessage().length()).join(Duration.ofSeconds(30));
        assertEquals("boom at 42".length(), recovered);
        Task<Integer> cancelled = Task.failed(new CancellationException("stop"));
        assertThrows(CancellationException.class, () -> cancelled.recoverOn(ui, e -> 1).join(Duration.ofSeconds(30)));
    }

    @Test
    void whenAllAndWhenAny() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Task<Integer> slow = Task.start(cpu, () -> {
            release.await();
            return 1;
        });
        Task<Integer> fast = Task.completed(2);
        assertEquals(2, Task.anyOf(slow, fast).join(Duration.ofSeconds(30)));
        release.countDown();
        assertEquals(List.of(1, 2), Task.allOf(slow, fast).join(Duration.ofSeconds(30)));
        assertEquals(List.of(), Task.<Integer>allOf(List.of()).join());
        Task<List<Integer>> failing = Task.allOf(Task.completed(1), Task.failed(new IllegalStateException("x")));
        assertThrows(IllegalStateException.class, failing::join);
        assertThrows(IllegalArgumentException.class, () -> Task.anyOf(List.<Task<Integer>>of()));
    }

    @Test
    void timeoutCancelsTheWorkItLimits() throws Exception {
        CompletableFuture<String> never = new CompletableFuture<>();
        Task<String> t = Task.from(never).withTimeout(Duration.ofMillis(20));
        TaskTimeoutException e = assertThrows(TaskTimeoutException.class, () -> t.join(Duration.ofSeconds(30)));
        assertEquals(Duration.ofMillis(20), e.limit());
        assertTrue(never.isCancelled(), "the timeout cancels the work it limits");
        assertEquals("fast", Task.completed("fast").withTimeout(Duration.ofSeconds(5)).join());
    }

    @Test
    void aTimeoutIsAFailureThatACatchOfCancellationDoesNotSwallow() throws Exception {
        CompletableFuture<String> never = new CompletableFuture<>();
        Task<String> work = Task.from(never);
        Task<String> limited = work.withTimeout(Duration.ofMillis(20));
        RuntimeException timeout = null;
        try {
            limited.join(Duration.ofSeconds(30));
            fail("a limited task that never completes must time out");
        } catch (CancellationException e) {
            fail("a timeout must not be caught as a cancellation: " + e);
        } catch (RuntimeException e) {
            timeout = e;
        }
        TaskTimeoutException e = assertInstanceOf(TaskTimeoutException.class, timeout);
        assertEquals(Duration.ofMillis(20), e.limit());
        assertInstanceOf(Outcome.Failure.class, limited.outcomeOrNull(), "a timed-out task failed");
        assertInstanceOf(TaskTimeoutException.class, limited.outcomeOrNull().errorOrNull());
        assertTrue(work.outcomeOrNull().isCancelled(), "withTimeout cancels the work it limits");
        assertInstanceOf(TaskTimeoutException.class, work.outcomeOrNull().errorOrNull().getCause(),
                "the work's cancellation says that the limit passed");
        assertTrue(never.isCancelled());
    }

    @Test
    void aTimeoutRacingTheWorkEitherKeepsItsValueOrFailsAndCancelsIt() throws Exception {
        int values = 0;
        int timeouts = 0;
        for (int round = 0; round < 2_000; round++) {
            Promise<Integer> source = new Promise<>();
            Task<Integer> work = Task.from(source);
            Task<Integer> limited = work.withTimeout(Duration.ZERO); // the timer thread races this thread
            source.complete(round);
            Outcome<Integer> o = outcomeOf(limited);
            if (o instanceof Outcome.Success<Integer> v) {
                assertEquals(round, v.value());
                assertEquals(new Outcome.Success<>(round), work.outcomeOrNull(), "a value is kept only if the work delivered it");
                values++;
            } else {
                assertInstanceOf(TaskTimeoutException.class, assertInstanceOf(Outcome.Failure.class, o).error());
                assertTrue(work.outcomeOrNull().isCancelled(), "a timeout only after the work was cancelled: " + work);
                timeouts++;
            }
        }
        assertEquals(2_000, values + timeouts);
    }

    private static <T> Outcome<T> outcomeOf(Task<T> t) throws Exception {
        try {
            t.join(Duration.ofSeconds(30));
        } catch (RuntimeException expected) {
            // the outcome says which
        }
        return t.outcomeOrNull();
    }

    @Test
    void aBoundedWaitThrowsTimeoutExceptionAndLeavesTheWorkAlone() throws Exception {
        CompletableFuture<String> never = new CompletableFuture<>();
        Task<String> work = Task.from(never);
        assertThrows(TimeoutException.class, () -> work.join(Duration.ofMillis(1)));
        assertFalse(work.isDone(), "join(Duration) does not cancel the work");
        assertFalse(never.isCancelled());
        never.complete("later");
        assertEquals("later", work.join(Duration.ofSeconds(30)));
    }

    @Test
    void cancelBeforeStartMeansTheBodyNeverRuns() throws Exception {
        CountDownLatch block = new CountDownLatch(1);
        Task.start(io, () -> {
            block.await();
            return null;
        });
        AtomicBoolean ran = new AtomicBoolean();
        Task<String> queued = Task.start(io, () -> {
            ran.set(true);
            return "x";
        });
        assertTrue(queued.cancel());
        assertFalse(queued.cancel());
        block.countDown();
        Task.start(io, () -> null).join(Duration.ofSeconds(30));
        assertFalse(ran.get());
        assertThrows(CancellationException.class, queued::join);
    }

    @Test
    void closeCancelsAnOwnedTaskAndDetachedFailuresAreReported() throws Exception {
        try (Task<String> owned = Task.from(new CompletableFuture<>())) {
            assertFalse(owned.isDone());
        } // closed here
        List<Throwable> reported = new ArrayList<>();
        CountDownLatch got = new CountDownLatch(1);
        Tasks.setUncaughtFailureHandler((task, e) -> {
            reported.add(e);
            got.countDown();
        });
        Task.start(io, () -> {
            throw new IllegalStateException("nobody awaits me");
        }).detach();
        assertTrue(got.await(30, TimeUnit.SECONDS));
        assertEquals("nobody awaits me", reported.get(0).getMessage());
        Task.start(io, () -> "fine").detach().join(Duration.ofSeconds(30));
        assertEquals(1, reported.size(), "successes are not reported");
    }

    @Test
    void aFailureThatCrossedThreeContextsCarriesItsHopsAndTheOriginalStack() throws Exception {
        Task<String> t = Task.start(io, () -> "read")
                .thenOn(cpu, s -> s + " parsed")
                .thenOn(ui, s -> {
                    throw new IllegalArgumentException("bad note: " + s);
                });
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> t.join(Duration.ofSeconds(30)));
        // Original stack: thrown inside the lambda on the ui thread.
        assertTrue(e.getStackTrace()[0].getMethodName().contains("lambda"), e.getStackTrace()[0].toString());
        HopTraceException hops = (HopTraceException) java.util.Arrays.stream(e.getSuppressed())
                .filter(s -> s instanceof HopTraceException).findFirst().orElseThrow();
        String m = hops.getMessage();
        assertTrue(m.contains("fake-io") && m.contains("fake-cpu") && m.contains("fake-ui"), m);
        assertTrue(m.indexOf("fake-io") < m.indexOf("fake-cpu") && m.indexOf("fake-cpu") < m.indexOf("fake-ui"), m);
        // The suppressed exception's own stack is the await site (this test method).
        assertTrue(java.util.Arrays.stream(hops.getStackTrace()).anyMatch(f -> f.getMethodName().contains("CrossedThreeContexts")));
        assertEquals(3, t.getTrace().getHops().size());
        // Awaiting again does not attach a second trace.
        assertThrows(IllegalArgumentException.class, () -> t.join(Duration.ofSeconds(30)));
        assertEquals(1, java.util.Arrays.stream(e.getSuppressed()).filter(s -> s instanceof HopTraceException).count());
    }

    @Test
    void tracingCanBeSwitchedOff() throws Exception {
        Tasks.setTracing(false);
        try {
            Task<String> t = Task.start(io, () -> "x");
            t.join(Duration.ofSeconds(30));
            assertTrue(t.getTrace().getHops().isEmpty());
        } finally {
            Tasks.setTracing(true);
        }
    }

    @Test
    void tenThousandVirtualThreadAwaitsOnASmallCarrierPool() throws Exception {
        int n = 10_000;
        Promise<Integer> gate = new Promise<>();
        AtomicInteger sum = new AtomicInteger();
        List<Task<Integer>> waiters = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            waiters.add(Task.startVirtual(() -> {
                int v = gate.join();
                sum.addAndGet(v);
                return v;
            }));
        }
        gate.complete(1);
        Task.allOf(waiters).join(Duration.ofSeconds(60));
        assertEquals(n, sum.get());
    }

    @Test
    void completableFutureInteropCancelsBothWays() throws Exception {
        CompletableFuture<String> cf = new CompletableFuture<>();
        Task<String> t = Task.from(cf);
        t.cancel();
        assertTrue(cf.isCancelled(), "cancelling the task cancels the future");
        Task<String> t2 = Task.from(new CompletableFuture<>());
        CompletableFuture<String> out = t2.toCompletableFuture();
        out.cancel(false);
        assertTrue(t2.outcomeOrNull().isCancelled(), "cancelling the future cancels the task");
        assertEquals("v", Task.from(CompletableFuture.supplyAsync(() -> "v")).toCompletableFuture().get(30, TimeUnit.SECONDS));
        Task<String> failed = Task.from(CompletableFuture.failedFuture(new IllegalStateException("cf")));
        assertInstanceOf(IllegalStateException.class, failed.outcomeOrNull().errorOrNull());
    }

    @Test
    void rejectedByAShutDownContextIsAShutdownCancellation() {
        ExecutorService dead = Executors.newSingleThreadExecutor();
        dead.shutdown();
        Task<String> t = Task.start(dead, () -> "never");
        assertInstanceOf(ContextShutdownException.class, t.outcomeOrNull().errorOrNull());
        Task<String> next = Task.completed("x").thenOn(dead, s -> s);
        assertInstanceOf(ContextShutdownException.class, next.outcomeOrNull().errorOrNull());
    }

    @Test
    void badInputIsRejectedClearly() {
        assertThrows(NullPointerException.class, () -> Task.start((java.util.concurrent.Executor) null, () -> 1));
        assertThrows(NullPointerException.class, () -> Task.start(io, null));
        assertThrows(NullPointerException.class, () -> Task.completed(1).thenOn(io, null));
        assertThrows(IllegalArgumentException.class, () -> Task.completed(1).withTimeout(Duration.ofMillis(-1)));
        assertThrows(NullPointerException.class, () -> Task.failed(null));
        // A null timeout is named, as every other argument is (it was "because "timeout" is null").
        assertEquals("timeout", assertThrows(NullPointerException.class, () -> Task.completed(1).join(null)).getMessage());
        // So is a null context of a suspending start (it was the JVM's "Cannot invoke ... because "context" is null").
        assertEquals("context", assertThrows(NullPointerException.class,
                () -> Task.startSuspend((ExecutionContext) null, cont -> 1)).getMessage());
        Task<Integer> composeNull = Task.completed(1).thenComposeOn(io, v -> null);
        assertThrows(NullPointerException.class, () -> composeNull.join(Duration.ofSeconds(30)));
    }

    /**
     * A {@code thenComposeOn} stage whose inner awaitable throws when the stage waits for it (an
     * implementation of {@code Awaitable} whose {@code onComplete} fails) fails with what it threw:
     * the stage's task is never left pending.
     */
    @Test
    void aComposedStageFailsWithWhatItsInnerAwaitableThrowsWhenWaitedFor() {
        Awaitable<Integer> throwing = new Awaitable<>() {
            @Override
            public boolean isDone() {
                return false;
            }

            @Override
            public Outcome<Integer> outcomeOrNull() {
                return null;
            }

            @Override
            public Registration onComplete(java.util.function.Consumer<? super Outcome<Integer>> callback) {
                throw new IllegalStateException("no callbacks here");
            }

            @Override
            public boolean cancel() {
                return false;
            }
        };
        Task<Integer> composed = Task.completed(1).thenComposeOn(io, v -> throwing);
        assertEquals("no callbacks here",
                assertThrows(IllegalStateException.class, () -> composed.join(Duration.ofSeconds(30))).getMessage());
    }

    @Test
    void sameTaskAwaitedFromManyThreads() throws Exception {
        Promise<String> p = new Promise<>();
        AtomicReference<String> a = new AtomicReference<>();
        Thread t1 = Thread.ofVirtual().start(() -> {
            try {
                a.set(p.join());
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        Thread t2 = Thread.ofPlatform().start(() -> {
            try {
                assertSame("v", p.join(Duration.ofSeconds(30)));
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        p.complete("v");
        t1.join();
        t2.join();
        assertEquals("v", a.get());
    }
}
