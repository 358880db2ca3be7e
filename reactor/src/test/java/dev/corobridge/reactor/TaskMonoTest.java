package dev.corobridge.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Task;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A Task as a Mono and a Publisher as a Task: every outcome, and cancellation both ways. */
class TaskMonoTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aPublishersFirstElementEndOrErrorIsTheTasksOutcome() throws Exception {
        assertEquals("mono", TaskMono.toTask(Mono.just("mono")).join(WAIT));
        assertNull(TaskMono.toTask(Mono.<String>empty()).join(WAIT));
        AtomicInteger requested = new AtomicInteger();
        AtomicBoolean cancelledAfterFirst = new AtomicBoolean();
        assertEquals(1, TaskMono.toTask(Flux.range(1, 1_000)
                .doOnRequest(n -> requested.addAndGet((int) Math.min(n, 1_000)))
                .doOnCancel(() -> cancelledAfterFirst.set(true))).join(WAIT));
        assertEquals(1, requested.get(), "one element requested");
        assertTrue(cancelledAfterFirst.get(), "the subscription is cancelled once the first element arrived");
        Task<String> failed = TaskMono.toTask(Mono.error(new IllegalStateException("upstream")));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> failed.join(WAIT));
        assertEquals("upstream", root(e).getMessage());
    }

    @Test
    void cancellingTheTaskCancelsTheSubscription() {
        AtomicBoolean upstreamCancelled = new AtomicBoolean();
        Task<Long> fromNever = TaskMono.toTask(Flux.<Long>never().doOnCancel(() -> upstreamCancelled.set(true)));
        assertFalse(fromNever.isDone());
        assertTrue(fromNever.cancel());
        assertTrue(upstreamCancelled.get(), "cancelling the task cancels the subscription");
        assertTrue(fromNever.outcomeOrNull().isCancelled());
    }

    @Test
    void aMonoOfATaskCarriesItsValueNullFailureOrCancellation() {
        assertEquals("v", TaskMono.toMono(Task.completed("v")).block(WAIT));
        assertNull(TaskMono.toMono(Task.completed(null)).block(WAIT), "null is an empty Mono");
        assertThrows(IllegalStateException.class, () -> TaskMono.toMono(Task.failed(new IllegalStateException("e"))).block(WAIT));
        Task<String> cancelled = Task.from(new CompletableFuture<>());
        cancelled.cancel();
        assertThrows(CancellationException.class, () -> TaskMono.toMono(cancelled).block(WAIT));
        // Completion after subscription reaches the subscriber.
        CompletableFuture<String> later = new CompletableFuture<>();
        Mono<String> m = TaskMono.toMono(Task.from(later));
        CompletableFuture<String> seen = m.toFuture();
        assertFalse(seen.isDone());
        later.complete("later");
        assertEquals("later", seen.join());
    }

    @Test
    void disposingTheSubscriptionCancelsTheTask() {
        Task<String> pending = Task.from(new CompletableFuture<>());
        Disposable d = TaskMono.toMono(pending).subscribe();
        assertFalse(pending.isDone());
        d.dispose();
        assertTrue(pending.outcomeOrNull().isCancelled(), "disposing the Mono cancels the task");
    }

    @Test
    void nullArgumentsAreRefusedByName() {
        assertEquals("task", assertThrows(NullPointerException.class, () -> TaskMono.toMono(null)).getMessage());
        assertEquals("publisher", assertThrows(NullPointerException.class, () -> TaskMono.toTask(null)).getMessage());
    }

    /** The original of a failure rethrown by {@code await} (a copy with the original as its cause). */
    static Throwable root(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause().getClass() == t.getClass()) {
            t = t.getCause();
        }
        return t;
    }
}
