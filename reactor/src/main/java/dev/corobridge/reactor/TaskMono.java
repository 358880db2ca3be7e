package dev.corobridge.reactor;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import dev.corobridge.bridge.Task;
import dev.corobridge.reactor.internal.SubscriberContext;
import java.util.Objects;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * A {@link Task} as a Reactor {@link Mono}, and the first element of a Reactive Streams
 * {@link Publisher} as a {@code Task}; cancellation crosses in both directions.
 *
 * <pre>{@code
 * Mono<Integer> m = TaskMono.toMono(count);                 // Kotlin: count.toMono()
 * Task<User> t = TaskMono.fromPublisher(userRepo.find(id)); // Kotlin: userRepo.find(id).asTask()
 * }</pre>
 *
 * <p>The Kotlin extensions {@code Task.toMono()} and {@code Publisher.asTask()} (in
 * {@code TaskMonoKt}) do the same.
 *
 * <p><b>Context, both ways.</b> A task carries the thread-bound context of the thread that created it
 * (see {@code dev.corobridge.context.ContextPropagation}); at the boundary with Reactor that context
 * becomes Reactor's and back: {@link #fromPublisher} subscribes with the current thread's values of
 * the thread-locals registered with Micrometer's {@code ContextRegistry} in the subscriber
 * {@code Context} (so {@code Mono.deferContextual}, WebClient or a traced repository see the
 * caller's trace), and {@link #defer} creates its task with the subscriber's {@code Context}
 * values set as those thread-locals (so the task and every hop it makes carry them). Both need
 * {@code io.micrometer:context-propagation} on the class path (as Reactor's own propagation does).
 *
 * <p><b>Thread-safety.</b> Stateless; safe from any thread. A {@code Mono} of a task emits on the
 * thread that completes the task (or the subscribing thread if it is already done); a task of a
 * publisher completes on the thread that signals the first element, the end or the error.
 */
public final class TaskMono {

    private TaskMono() {
    }

    /**
     * A {@code Mono} of {@code task}: its value (empty for {@code null}), its failure, or, if it was
     * cancelled, its {@link java.util.concurrent.CancellationException} as an error. Disposing a
     * subscription before the task completed withdraws that subscription's callback and cancels
     * the task (the subscriber owns the work, as WebFlux expects of a controller's return value).
     * Every subscription observes the same task; the task is not started again.
     *
     * @throws NullPointerException if {@code task} is {@code null}
     */
    public static <T> Mono<T> toMono(Task<T> task) {
        Objects.requireNonNull(task, "task");
        return Mono.create(sink -> {
            Registration r = task.onComplete(o -> {
                switch (o) {
                    case Outcome.Success<T> s -> sink.success(s.value());
                    case Outcome.Failure<T> x -> sink.error(x.error());
                    case Outcome.Cancelled<T> c -> sink.error(c.cause());
                }
            });
            sink.onCancel(() -> {
                r.dispose();
                task.cancel();
            });
        });
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
     * A task of the first element of {@code publisher} ({@code null} if it completes empty, as an
     * empty {@code Mono} does), or of its error. It subscribes at once and requests one element;
     * once it has one it cancels the subscription. Cancelling the task cancels the subscription.
     * The subscription's Reactor {@code Context} holds the current thread's context (see the class
     * comment).
     *
     * @throws NullPointerException if {@code publisher} is {@code null}
     */
    public static <T> Task<T> fromPublisher(Publisher<T> publisher) {
        return ReactorTasks.firstOf(Objects.requireNonNull(publisher, "publisher"));
    }
}
