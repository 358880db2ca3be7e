package dev.corobridge.spring;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

import dev.corobridge.bridge.Task;
import dev.corobridge.reactor.TaskMono;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ReactiveTypeDescriptor;
import reactor.core.publisher.Mono;

/**
 * Makes {@link Task} a reactive type: a {@code BeanPostProcessor} that registers it on every
 * {@link ReactiveAdapterRegistry} bean, WebFlux's {@code webFluxAdapterRegistry} among them, so a
 * controller method may return {@code Task<T>}. WebFlux subscribes to a {@code Mono} of the task
 * ({@link #toMono(Task)}); when the client goes away WebFlux cancels that subscription, which cancels
 * the task.
 *
 * <p><b>Where the value is delivered.</b> If the subscriber's Reactor context holds an
 * {@link Executor} under {@link #ANSWER_EXECUTOR}, the task's outcome is handed to WebFlux through
 * it ({@link TaskMono#toMono(Task, Executor)}); otherwise on the thread that completed the task
 * ({@link TaskMono#toMono(Task)}). {@link EventLoopAnswerFilter} puts the request's Netty event loop
 * there, so that a task finishing on the message pump has its answer encoded and written on the
 * connection's loop, not on the pump.
 */
public final class TaskReactiveAdapters implements BeanPostProcessor {

    /**
     * Reactor context key of the {@link Executor} through which a handler's {@code Task} hands its
     * outcome to WebFlux (see the class comment). The executor may run it in place.
     */
    public static final String ANSWER_EXECUTOR = "dev.corobridge.spring.TaskReactiveAdapters.answerExecutor";

    /**
     * Registers {@link Task} on {@code registry} as a single optional value (an empty publisher
     * becomes a task completed with {@code null}). Idempotent: a later call replaces the adapter.
     */
    public static void register(ReactiveAdapterRegistry registry) {
        registry.registerReactiveTypeOverride(
                ReactiveTypeDescriptor.singleOptionalValue(Task.class, () -> Task.completed(null)),
                source -> toMono((Task<?>) source),
                TaskMono::toTask);
    }

    /**
     * The {@code Mono} WebFlux gets for a handler's {@code task}: its value (empty for {@code null}),
     * its failure, or a cancelled task's {@code CancellationException}; disposing the subscription
     * cancels the task. It is delivered through the {@link #ANSWER_EXECUTOR} of the subscriber's
     * context when there is one ({@link TaskMono#toMono(Task, Executor)}: the request's event loop
     * with {@code corobridge.webflux.answer-on-event-loop}), else on the thread that completed the
     * task ({@link TaskMono#toMono(Task)}). For handlers that build their {@code Mono} themselves,
     * such as functional routes that need a task's value to make the response: they answer where a
     * handler returning the {@code Task} would.
     *
     * @throws NullPointerException if {@code task} is {@code null}
     */
    public static <T> Mono<T> toMono(Task<T> task) {
        Objects.requireNonNull(task, "task");
        return Mono.deferContextual(context -> {
            Executor answer = context.getOrDefault(ANSWER_EXECUTOR, null);
            return answer == null ? TaskMono.toMono(task) : TaskMono.toMono(task, answer);
        });
    }

    /**
     * {@link #toMono(Task)} of a task created when the {@code Mono} is subscribed, with the
     * subscriber's Reactor context set as the thread-locals registered with Micrometer's
     * {@code ContextRegistry} while {@code supplier} runs ({@link TaskMono#defer(Supplier)}): the
     * task carries the request's MDC and trace across its hops also where Reactor does not restore
     * them by itself (Spring Boot's default {@code spring.reactor.context-propagation=limited}), such
     * as in a {@code flatMap} after the request body arrived. Delivered as {@link #toMono(Task)}
     * delivers. {@code supplier} is called once per subscription.
     *
     * <pre>{@code
     * return request.bodyToMono(Note.class)
     *         .flatMap(note -> TaskReactiveAdapters.defer(() -> notes.addAsync(note)))
     *         .flatMap(saved -> ServerResponse.ok().bodyValue(saved));
     * }</pre>
     *
     * @throws NullPointerException if {@code supplier} is {@code null} (or, at subscription, returns null)
     */
    public static <T> Mono<T> defer(Supplier<? extends Task<T>> supplier) {
        Objects.requireNonNull(supplier, "supplier");
        return Mono.deferContextual(context -> {
            Executor answer = context.getOrDefault(ANSWER_EXECUTOR, null);
            return answer == null ? TaskMono.defer(supplier) : TaskMono.defer(supplier, answer);
        });
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ReactiveAdapterRegistry registry) {
            register(registry);
        }
        return bean;
    }
}
