package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.sync.AsyncChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code cancel()} means one thing everywhere: it returns {@code true} iff this call decided the
 * outcome. Checked for every cancellable thing of corobridge-bridge, once in sequence (first call,
 * later call, after a value or a failure decided) and under races of many cancellers, where
 * exactly one may win.
 */
class CancelContractTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int RACERS = 4;
    private static final int ROUNDS = 300;

    private final ExecutorService pool = Executors.newFixedThreadPool(RACERS);

    @AfterEach
    void tearDown() {
        pool.shutdownNow();
    }

    @Test
    void promiseAndTask() throws Exception {
        Promise<String> p = new Promise<>();
        assertTrue(p.cancel(), "the first cancel decides");
        assertFalse(p.cancel(), "a later cancel does not");
        Promise<String> valued = new Promise<>();
        valued.complete("v");
        assertFalse(valued.cancel(), "a value decided first");
        Promise<String> failed = new Promise<>();
        failed.fail(new IllegalStateException("x"));
        assertFalse(failed.cancel(), "a failure decided first");

        CountDownLatch never = new CountDownLatch(1);
        Task<String> t = Task.start(pool, () -> {
            never.await();
            return "never";
        });
        assertTrue(t.cancel());
        assertFalse(t.cancel());
        assertFalse(Task.completed("v").cancel());
        assertThrows(CancellationException.class, () -> t.join(WAIT));
        never.countDown();

        exactlyOneWins(() -> {
            Promise<String> shared = new Promise<>();
            return shared::cancel;
        });
        exactlyOneWins(() -> {
            Task<String> shared = Task.from(new java.util.concurrent.CompletableFuture<>());
            return shared::cancel;
        });
    }

    @Test
    void taskScope() throws Exception {
        TaskScope scope = TaskScope.open("cancel-once");
        CountDownLatch started = new CountDownLatch(1);
        Task<String> child = scope.forkSuspend(Dispatchers.getDefault(), cont -> KotlinHelpers.INSTANCE.suspendForever(started, cont));
        assertTrue(started.await(30, TimeUnit.SECONDS));
        assertTrue(scope.cancel(), "the first cancel decides");
        assertFalse(scope.cancel(), "a later cancel does not");
        assertThrows(CancellationException.class, () -> child.join(WAIT));
        scope.close();

        try (TaskScope failing = TaskScope.open("failed-first")) {
            failing.fork(pool, () -> {
                throw new IllegalStateException("first failure");
            });
            assertThrows(IllegalStateException.class, failing::joinAll);
            assertFalse(failing.cancel(), "a child's failure cancelled the scope first");
        }

        exactlyOneWins(() -> {
            TaskScope shared = TaskScope.open("race");
            return shared::cancel;
        });
    }

    @Test
    void asyncChannel() throws Exception {
        AsyncChannel<String> ch = AsyncChannel.bounded(2);
        assertTrue(ch.trySend("buffered"));
        assertTrue(ch.cancel(), "the first cancel decides");
        assertFalse(ch.cancel(), "a later cancel does not");
        assertTrue(ch.receiveAsync().outcomeOrNull().isCancelled(), "the buffer was discarded");

        AsyncChannel<String> closed = AsyncChannel.unbounded();
        assertTrue(closed.close());
        assertTrue(closed.cancel(), "close() ends sending; cancel() still decides the cancellation");

        // A pending receive: withdrawn by its own cancel() only if nothing was handed to it.
        AsyncChannel<String> rendezvous = AsyncChannel.rendezvous();
        Awaitable<String> receive = rendezvous.receiveAsync();
        assertTrue(receive.cancel());
        assertFalse(receive.cancel());
        Awaitable<String> matched = rendezvous.receiveAsync();
        assertTrue(rendezvous.trySend("taken"));
        assertFalse(matched.cancel(), "the element already changed hands");
        assertEquals("taken", matched.join(WAIT));

        exactlyOneWins(() -> {
            AsyncChannel<String> shared = AsyncChannel.unbounded();
            return shared::cancel;
        });
    }

    @Test
    void aTimedOutTaskCannotBeCancelledAnyMore() throws Exception {
        Task<String> limited = Task.from(new java.util.concurrent.CompletableFuture<String>()).withTimeout(Duration.ZERO);
        assertThrows(TaskTimeoutException.class, () -> limited.join(WAIT));
        assertFalse(limited.cancel(), "the timeout decided");
        assertInstanceOf(Outcome.Failure.class, limited.outcomeOrNull());
    }

    /** Races {@link #RACERS} cancellers on a fresh target per round: exactly one returns true. */
    private void exactlyOneWins(Supplier<BooleanSupplier> newTarget) throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            BooleanSupplier cancel = newTarget.get();
            CyclicBarrier start = new CyclicBarrier(RACERS);
            AtomicInteger winners = new AtomicInteger();
            List<Future<?>> racers = new ArrayList<>();
            for (int i = 0; i < RACERS; i++) {
                racers.add(pool.submit(() -> {
                    start.await();
                    if (cancel.getAsBoolean()) {
                        winners.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (Future<?> f : racers) {
                f.get(30, TimeUnit.SECONDS);
            }
            assertEquals(1, winners.get(), "round " + round + ": exactly one cancel() decides");
        }
    }
}
