package dev.corobridge.reactor;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import dev.corobridge.bridge.Task;
import dev.corobridge.reactor.internal.SubscriberContext;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * A {@link Task} as a Reactor {@link Mono}, and the first element of a Reactive Streams
 * {@link Publisher} as a {@code Task}; cancellation crosses in both directions.
 *
 * <pre>{@code
 * Mono<Integer> m = TaskMono.toMono(count);                 // Kotlin: count.asMono()
 * Mono<Integer> a = TaskMono.toMono(count, eventLoop);      // Kotlin: count.asMono(eventLoop)
 * Task<User> t = TaskMono.toTask(userRepo.find(id));        // Kotlin: userRepo.find(id).asTask()
 * }</pre>
 *
 * <p>The Kotlin extensions {@code Task.asMono()}, {@code Task.asMono(answerOn)} and
 * {@code Publisher.asTask()} (in {@code TaskMonos}) do the same.
 *
 * <p><b>Where the subscriber hears the outcome.</b> {@link #toMono(Task)} signals on the thread that
 * completes the task, typically the message pump or a ring; {@link #toMono(Task, Executor)} hands the
 * signal to an executor first, so that what the subscriber does next (a web framework encoding and
 * writing an answer) runs there and not on the thread that computed the value. The Spring Boot
 * starter's {@code Task} adapter for WebFlux is this, with the request's event loop as the executor.
 *
 * <p><b>Context, both ways.</b> A task carries the thread-bound context of the thread that created it
 * (see {@code dev.corobridge.context.ContextPropagation}); at the boundary with Reactor that context
 * becomes Reactor's and back: {@link #toTask} subscribes with the current thread's values of
 * the thread-locals registered with Micrometer's {@code ContextRegistry} in the subscriber
 * {@code Context} (so {@code Mono.deferContextual}, WebClient or a traced repository see the
 * caller's trace), and {@link #defer} creates its task with the subscriber's {@code Context}
 * values set as those thread-locals (so the task and every hop it makes carry them). Both need
 * {@code io.micrometer:context-propagation} on the class path (as Reactor's own propagation does).
 *
 * <p><b>Thread-safety.</b> Stateless; safe from any thread. A {@code Mono} of a task emits on the
 * thread that completes the task (or the subscribing thread if it is already done), or through the
 * executor it was given; a task of a publisher completes on the thread that signals the first
 * element, the end or the error. The task's outcome is published before the subscriber is signalled
 * (the task's completion happens-before its callbacks, and an executor's hand-over happens-before
 * the run).
 */
public final class TaskMono {

    private TaskMono() {
    }

    /**
     * A {@code Mono} of {@code task}: its value (empty for {@code null}), its failure, or, if it was
     * cancelled, its {@link java.util.concurrent.CancellationException} as an error. Disposing a
     * subscription before the task completed withdraws that subscription's callback and cancels
     * the task (the subscriber owns the work, as WebFlux expects of a controller's return value).
     * Every subscription observes the same task; the task is not started again. So one
     * subscriber's disposal (a {@code timeout}, a {@code zip} partner's failure, a {@code retry}'s
     * resubscription) cancels the task for every other subscriber too; a Mono that is subscribed
     * more than once and should start its work for each subscription is
     * {@link #defer(java.util.function.Supplier) defer}'s.
     *
     * @throws NullPointerException if {@code task} is {@code null}
     */
    public static <T> Mono<T> toMono(Task<T> task) {
        Objects.requireNonNull(task, "task");
        return Mono.create(sink -> observe(task, sink, outcome -> signal(sink, outcome)));
    }

    /**
     * {@link #toMono(Task)}, with the outcome handed to the subscriber through {@code answerOn}: the
     * task's value (empty for {@code null}), its failure or its cancellation is signalled from a
     * task run by {@code answerOn}, also when the task is already complete at subscription.
     * {@code answerOn} may run that task in place (an executor for a Netty event loop does when it is
     * called on the loop). If it refuses the task ({@link RejectedExecutionException}: it is shutting
     * down), the outcome is signalled on the thread that completed the task instead, so that it is
     * never lost. Disposing a subscription before the task completed withdraws its callback and
     * cancels the task, as {@link #toMono(Task)} does; disposing it after the hand-over drops the
     * signal (Reactor's rule for a cancelled subscriber).
     *
     * <pre>{@code
     * return TaskMono.toMono(users.loadAsync(id), eventLoop); // the answer is made on the loop
     * }</pre>
     *
     * @param answerOn where the subscriber is signalled
     * @throws NullPointerException if {@code task} or {@code answerOn} is {@code null}
     */
    public static <T> Mono<T> toMono(Task<T> task, Executor answerOn) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(answerOn, "answerOn");
        return Mono.create(sink -> observe(task, sink, outcome -> {
            try {
                answerOn.execute(() -> signal(sink, outcome));
            } catch (RejectedExecutionException shuttingDown) {
                signal(sink, outcome);
            }
        }));
    }

    /** Has {@code deliver} told the task's outcome; the subscriber's cancellation cancels the task. */
    private static <T> void observe(Task<T> task, MonoSink<T> sink, Consumer<Outcome<T>> deliver) {
        Registration r = task.onComplete(deliver);
        sink.onCancel(() -> {
            r.dispose();
            task.cancel();
        });
    }

    private static <T> void signal(MonoSink<T> sink, Outcome<T> outcome) {
        switch (outcome) {
            case Outcome.Success<T> s -> sink.success(s.value());
            case Outcome.Failure<T> x -> sink.error(x.error());
            case Outcome.Cancelled<T> c -> sink.error(c.cause());
        }
    }

    /**
     * A {@code Mono} that creates its task when subscribed — {@code supplier} is called once per
     * subscription — with the subscriber's Reactor {@code Context} set, for the time of the call, as
     * the thread-locals registered with Micrometer's {@code ContextRegistry}: the task captures them
     * and carries them across its hops. Otherwise as {@link #toMono}: the value, failure or
     * cancellation of the task; disposing the subscription cancels it.
     *
     * <pre>{@code
     * return TaskMono.defer(() -> Task.start(pump, () -> board.snapshot()));  // a WebFlux handler
     * }</pre>
     *
     * @throws NullPointerException if {@code supplier} is {@code null} (or, at subscription, returns null)
     */
    public static <T> Mono<T> defer(Supplier<? extends Task<T>> supplier) {
        Objects.requireNonNull(supplier, "supplier");
        return Mono.deferContextual(context -> toMono(Objects.requireNonNull(
                SubscriberContext.with(context, supplier), "TaskMono.defer supplier returned null")));
    }

    /**
     * {@link #defer(Supplier)}, with the outcome handed to the subscriber through {@code answerOn} as
     * {@link #toMono(Task, Executor)} hands it: the task is created when subscribed, with the
     * subscriber's {@code Context} set as the registered thread-locals, and its value, failure or
     * cancellation is signalled from a task run by {@code answerOn} (in place if it refuses).
     *
     * <pre>{@code
     * return body.flatMap(b -> TaskMono.defer(() -> board.addAsync(b), eventLoop)); // carries the request's trace
     * }</pre>
     *
     * @param answerOn where the subscriber is signalled
     * @throws NullPointerException if {@code supplier} or {@code answerOn} is {@code null} (or, at
     *         subscription, {@code supplier} returns null)
     */
    public static <T> Mono<T> defer(Supplier<? extends Task<T>> supplier, Executor answerOn) {
        Objects.requireNonNull(supplier, "supplier");
        Objects.requireNonNull(answerOn, "answerOn");
        return Mono.deferContextual(context -> toMono(Objects.requireNonNull(
                SubscriberContext.with(context, supplier), "TaskMono.defer supplier returned null"), answerOn));
    }

    /**
     * A task of the first element of {@code publisher} ({@code null} if it completes empty, as an
     * empty {@code Mono} does), or of its error. It subscribes at once and requests one element;
     * once it has one it cancels the subscription. Cancelling the task cancels the subscription.
     * The subscription's Reactor {@code Context} holds the current thread's context (see the class
     * comment).
     *
     * @throws NullPointerException if {@code publisher} is {@code null}
     */
    public static <T> Task<T> toTask(Publisher<T> publisher) {
        return ReactorTasks.firstOf(Objects.requireNonNull(publisher, "publisher"));
    }
}
