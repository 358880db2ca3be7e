package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TaskScopeTest {

    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
    }

    /**
     * close() waits for the children also when the thread is interrupted, before or during the
     * wait (as StructuredTaskScope.close does), and keeps the interrupt status for the caller.
     */
    @Test
    void closeWaitsForTheChildrenEvenWhenInterruptedAndKeepsTheInterrupt() throws Exception {
        for (boolean before : new boolean[] {true, false}) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean finished = new AtomicBoolean();
            TaskScope scope = TaskScope.open("interrupted-close");
            scope.fork(pool, () -> {
                started.countDown();
                // Not interruptible, as much work is not: cancellation cannot stop it.
                while (!release.await(10, TimeUnit.MILLISECONDS)) {
                    Thread.onSpinWait();
                }
                finished.set(true);
                return 1;
            });
            assertTrue(started.await(30, TimeUnit.SECONDS));
            Thread closer = Thread.currentThread();
            // Releases the child only once the closer waits with no interrupt pending: inside
            // close() (after it took the interrupt), or, had close() returned, anywhere after it.
            Thread interrupter = Thread.ofPlatform().start(() -> {
                if (!before) {
                    awaitParkedWithoutInterrupt(closer);
                    closer.interrupt();
                }
                awaitParkedWithoutInterrupt(closer);
                release.countDown();
            });
            if (before) {
                Thread.currentThread().interrupt();
            }
            scope.close();
            boolean finishedWhenClosed = finished.get();
            boolean interrupted = Thread.interrupted();
            interrupter.join();
            assertTrue(finishedWhenClosed, "close() returned before its child finished (interrupted " + (before ? "before" : "during") + " the wait)");
            assertTrue(interrupted, "the interrupt status is kept");
        }
    }

    /** Waits (bounded) until {@code t} is parked and has no interrupt pending. */
    private static void awaitParkedWithoutInterrupt(Thread t) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!((t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING) && !t.isInterrupted())) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(t + " did not park within 30 s: " + t.getState());
            }
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000); // polling pace
        }
    }

    /** A fork that closes or joins its own scope would wait for itself: refused, as StructuredTaskScope refuses it. */
    @Test
    void aForkThatClosesOrJoinsItsOwnScopeIsRefused() throws Exception {
        for (String call : new String[] {"close", "joinAll"}) {
            TaskScope scope = TaskScope.open("self-" + call);
            Task<Integer> fork = scope.fork(pool, () -> {
                if (call.equals("close")) {
                    scope.close();
                } else {
                    scope.joinAll();
                }
                return 1;
            });
            CountDownLatch done = new CountDownLatch(1);
            fork.onComplete(o -> done.countDown());
            assertTrue(done.await(10, TimeUnit.SECONDS), call + " from the scope's own fork: still waiting for itself after 10 s");
            Outcome<Integer> o = fork.outcomeOrNull();
            assertTrue(o instanceof Outcome.Failure<Integer> f && f.error() instanceof IllegalStateException
                    && f.error().getMessage().contains("its own"), String.valueOf(o));
            scope.close();
        }
    }

    /**
     * Once joinAll() returns, every fork's task is decided (the class's own example reads
     * {@code resultNow()} next): a child's job is complete a moment before its task is settled, and
     * joinAll() could return in that moment ("not complete", 1 run in about 30 of forkAndJoinAll).
     */
    @Test
    void everyForksTaskIsDecidedOnceJoinAllReturns() throws Exception {
        for (int round = 0; round < 5_000; round++) {
            try (TaskScope scope = TaskScope.open("decided-" + round)) {
                Task<Integer> a = scope.fork(pool, () -> 1);
                Task<Integer> b = scope.fork(Dispatchers.getDefault(), () -> 2);
                scope.joinAll();
                assertTrue(a.isDone() && b.isDone(), "round " + round + ": " + a + ", " + b);
            }
        }
    }

    @Test
    void forkAndJoinAll() throws Exception {
        try (TaskScope scope = TaskScope.open("ok")) {
            Task<Integer> a = scope.fork(pool, () -> 1);
            Task<Integer> b = scope.fork(Dispatchers.getDefault(), () -> 2);
            scope.joinAll();
            assertEquals(3, a.resultNow() + b.resultNow());
        }
    }

    @Test
    void firstFailureCancelsSiblingsAndIsRethrown() throws Exception {
        CountDownLatch siblingStarted = new CountDownLatch(1);
        try (TaskScope scope = TaskScope.open("failing")) {
            Task<String> sibling = scope.forkSuspend(Dispatchers.getDefault(),
                    cont -> KotlinHelpers.INSTANCE.suspendForever(siblingStarted, cont));
            assertTrue(siblingStarted.await(30, TimeUnit.SECONDS));
            scope.fork(pool, () -> {
                throw new IllegalStateException("first failure");
            });
            IllegalStateException e = assertThrows(IllegalStateException.class, scope::joinAll);
            assertEquals("first failure", e.getMessage());
            assertTrue(sibling.outcomeOrNull() != null && sibling.outcomeOrNull().isCancelled(), String.valueOf(sibling));
            Task<Integer> late = scope.fork(pool, () -> 1);
            assertThrows(java.util.concurrent.CancellationException.class, () -> late.join(Duration.ofSeconds(30)));
        }
    }

    @Test
    void kotlinChildrenJoinTheSameTree() throws Exception {
        TaskScope scope = TaskScope.open("mixed");
        AtomicBoolean kotlinChildCancelled = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        KotlinHelpers.INSTANCE.launchChild(scope.getScope(), started, kotlinChildCancelled);
        assertTrue(started.await(30, TimeUnit.SECONDS));
        assertEquals(1, KotlinHelpers.INSTANCE.childCount(scope.getJob()));
        scope.close(); // cancels and waits
        assertTrue(kotlinChildCancelled.get(), "the Kotlin child was cancelled with the scope");
    }
}
