package dev.corobridge.reactor;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import dev.corobridge.bridge.Task;
import java.util.Objects;
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
     * A task of the first element of {@code publisher} ({@code null} if it completes empty, as an
     * empty {@code Mono} does), or of its error. It subscribes at once and requests one element;
     * once it has one it cancels the subscription. Cancelling the task cancels the subscription.
     *
     * @throws NullPointerException if {@code publisher} is {@code null}
     */
    public static <T> Task<T> fromPublisher(Publisher<T> publisher) {
        return ReactorTasks.firstOf(Objects.requireNonNull(publisher, "publisher"));
    }
}
