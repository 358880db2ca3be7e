package dev.corobridge.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;

/**
 * {@link TaskMono#toMono(Task, java.util.concurrent.Executor)}: every exit (value, {@code null},
 * failure, cancelled task, disposed subscription) reaches the subscriber through the executor it was
 * given, for a task completed before and after the subscription; an executor that refuses leaves the
 * signal on the completing thread; and completion racing disposal, many rounds, signals at most once
 * and always decides the task.
 */
class TaskMonoAnswerOnTest {

    private static final String ANSWER_THREAD = "answer-on";
    private final ExecutorService answerOn = Executors.newSingleThreadExecutor(r -> new Thread(r, ANSWER_THREAD));

    @AfterEach
    void stop() throws InterruptedException {
        answerOn.shutdownNow();
        assertTrue(answerOn.awaitTermination(30, TimeUnit.SECONDS));
    }

    @Test
    void aValueIsSignalledOnTheExecutorWhenTheTaskCompletesLater() throws Exception {
        Promise<String> later = new Promise<>();
        Signals<String> seen = Signals.subscribe(Task.from(later), answerOn);
        assertFalse(seen.ended.await(0, TimeUnit.SECONDS));
        later.complete("later");
        assertEquals("next later on " + ANSWER_THREAD + ", complete on " + ANSWER_THREAD, seen.await());
    }

    @Test
    void aTaskCompleteAtSubscriptionIsSignalledOnTheExecutorToo() throws Exception {
        assertEquals("next done on " + ANSWER_THREAD + ", complete on " + ANSWER_THREAD,
                Signals.subscribe(Task.completed("done"), answerOn).await());
    }

    @Test
    void nullIsAnEmptyMono() throws Exception {
        assertEquals("complete on " + ANSWER_THREAD, Signals.subscribe(Task.completed(null), answerOn).await());
        assertNull(TaskMono.toMono(Task.completed((String) null), answerOn).block(java.time.Duration.ofSeconds(30)));
    }

    @Test
    void aFailureIsSignalledOnTheExecutor() throws Exception {
        Promise<String> failing = new Promise<>();
        Signals<String> seen = Signals.subscribe(Task.from(failing), answerOn);
        failing.fail(new IllegalStateException("boom"));
        assertEquals("error IllegalStateException: boom on " + ANSWER_THREAD, seen.await());
    }

    @Test
    void aCancelledTaskIsACancellationErrorOnTheExecutor() throws Exception {
        Promise<String> cancelled = new Promise<>();
        Task<String> task = Task.from(cancelled);
        Signals<String> seen = Signals.subscribe(task, answerOn);
        task.cancel();
        assertTrue(seen.await().startsWith("error CancellationException"), seen.await());
        assertTrue(seen.await().endsWith(" on " + ANSWER_THREAD), seen.await());
        assertInstanceOf(CancellationException.class, assertThrows(RuntimeException.class,
                () -> TaskMono.toMono(task, answerOn).block(java.time.Duration.ofSeconds(30))));
    }

    @Test
    void disposingTheSubscriptionCancelsTheTaskAndNothingIsSignalled() throws Exception {
        Promise<String> pending = new Promise<>();
        Task<String> task = Task.from(pending);
        AtomicInteger signals = new AtomicInteger();
        Disposable d = TaskMono.toMono(task, answerOn).subscribe(v -> signals.incrementAndGet(),
                e -> signals.incrementAndGet(), signals::incrementAndGet);
        d.dispose();
        assertTrue(task.outcomeOrNull().isCancelled(), "disposing the Mono cancels the task");
        // Whatever the executor still runs has run once this marker has.
        CountDownLatch drained = new CountDownLatch(1);
        answerOn.execute(drained::countDown);
        assertTrue(drained.await(30, TimeUnit.SECONDS));
        assertEquals(0, signals.get(), "a disposed subscriber hears nothing");
    }

    @Test
    void anExecutorThatRefusesLeavesTheSignalOnTheCompletingThread() throws Exception {
        Promise<String> later = new Promise<>();
        Signals<String> seen = Signals.subscribe(Task.from(later), command -> {
            throw new RejectedExecutionException("shutting down");
        });
        Thread completer = new Thread(() -> later.complete("v"), "completer");
        completer.start();
        completer.join(30_000);
        assertEquals("next v on completer, complete on completer", seen.await());
    }

    @Test
    void nullArgumentsAreRefusedByName() {
        assertEquals("task", assertThrows(NullPointerException.class, () -> TaskMono.toMono(null, answerOn)).getMessage());
        assertEquals("answerOn", assertThrows(NullPointerException.class,
                () -> TaskMono.toMono(Task.completed(1), null)).getMessage());
    }

    /**
     * Completion and disposal race, released together by a barrier: the subscriber hears at most one
     * signal, and only if the task completed with its value (a disposal that came first cancels the
     * task, and a cancelled task is never signalled to a disposed subscriber); the task is always
     * decided, and a hand-over to the executor never throws.
     */
    @Test
    void completionRacingDisposalSignalsAtMostOnceAndDecidesTheTask() throws Exception {
        ExecutorService racers = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 2_000; round++) {
                Promise<Integer> promise = new Promise<>();
                Task<Integer> task = Task.from(promise);
                AtomicInteger values = new AtomicInteger();
                AtomicInteger others = new AtomicInteger();
                Disposable d = TaskMono.toMono(task, answerOn).subscribe(v -> values.incrementAndGet(),
                        e -> others.incrementAndGet(), others::incrementAndGet);
                CyclicBarrier start = new CyclicBarrier(2);
                int value = round;
                List<java.util.concurrent.Future<?>> done = new ArrayList<>();
                done.add(racers.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    promise.complete(value);
                    return null;
                }));
                done.add(racers.submit(() -> {
                    start.await(30, TimeUnit.SECONDS);
                    d.dispose();
                    return null;
                }));
                for (java.util.concurrent.Future<?> f : done) {
                    f.get(30, TimeUnit.SECONDS);
                }
                CountDownLatch drained = new CountDownLatch(1);
                answerOn.execute(drained::countDown);
                assertTrue(drained.await(30, TimeUnit.SECONDS));
                assertTrue(task.isDone(), "round " + round + ": the task is decided");
                assertTrue(values.get() + others.get() <= 2, "round " + round + ": one value and its completion at most");
                if (task.outcomeOrNull().isCancelled()) {
                    assertEquals(0, values.get() + others.get(), "round " + round + ": a cancelled task is not signalled");
                }
            }
        } finally {
            racers.shutdownNow();
        }
    }

    /** What a subscriber heard, and on which threads. */
    private static final class Signals<T> implements CoreSubscriber<T> {
        final CountDownLatch ended = new CountDownLatch(1);
        final StringBuffer heard = new StringBuffer();

        static <T> Signals<T> subscribe(Task<T> task, java.util.concurrent.Executor answerOn) {
            Signals<T> s = new Signals<>();
            TaskMono.toMono(task, answerOn).subscribe(s);
            return s;
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(1);
        }

        @Override
        public void onNext(T t) {
            heard.append("next ").append(t).append(" on ").append(Thread.currentThread().getName()).append(", ");
        }

        @Override
        public void onError(Throwable t) {
            heard.append("error ").append(t.getClass().getSimpleName()).append(": ").append(t.getMessage())
                    .append(" on ").append(Thread.currentThread().getName());
            ended.countDown();
        }

        @Override
        public void onComplete() {
            heard.append("complete on ").append(Thread.currentThread().getName());
            ended.countDown();
        }

        String await() throws InterruptedException {
            assertTrue(ended.await(30, TimeUnit.SECONDS), "no end signal; heard: " + heard);
            return heard.toString();
        }
    }
}
