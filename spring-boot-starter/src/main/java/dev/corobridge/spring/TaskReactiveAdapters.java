package dev.corobridge.spring;

import java.util.concurrent.Executor;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Registration;
import dev.corobridge.bridge.Task;
import dev.corobridge.reactor.TaskMono;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ReactiveTypeDescriptor;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Makes {@link Task} a reactive type: a {@code BeanPostProcessor} that registers it on every
 * {@link ReactiveAdapterRegistry} bean, WebFlux's {@code webFluxAdapterRegistry} among them, so a
 * controller method may return {@code Task<T>}. WebFlux subscribes to a {@code Mono} of the task
 * (as {@link TaskMono#toMono(Task)}); when the client goes away WebFlux cancels that subscription,
 * which cancels the task.
 *
 * <p><b>Where the value is delivered.</b> If the subscriber's Reactor context holds an
 * {@link Executor} under {@link #ANSWER_EXECUTOR}, the task's outcome is handed to WebFlux through
 * it; otherwise on the thread that completed the task. {@link EventLoopAnswerFilter} puts the
 * request's Netty event loop there, so that a task finishing on the message pump has its answer
 * encoded and written on the connection's loop, not on the pump.
 */
public final class TaskReactiveAdapters implements BeanPostProcessor {

    /**
     * Reactor context key of the {@link Executor} through which a handler's {@code Task} hands its
     * outcome to WebFlux (see the class comment). The executor may run it in place.
     */
    static final String ANSWER_EXECUTOR = "dev.corobridge.spring.TaskReactiveAdapters.answerExecutor";

    /**
     * Registers {@link Task} on {@code registry} as a single optional value (an empty publisher
     * becomes a task completed with {@code null}). Idempotent: a later call replaces the adapter.
     */
    public static void register(ReactiveAdapterRegistry registry) {
        registry.registerReactiveTypeOverride(
                ReactiveTypeDescriptor.singleOptionalValue(Task.class, () -> Task.completed(null)),
                source -> toMono((Task<?>) source),
                TaskMono::fromPublisher);
    }

    /**
     * A {@code Mono} of {@code task} like {@link TaskMono#toMono(Task)} (value, empty for
     * {@code null}, failure, a cancelled task's {@code CancellationException}; disposing cancels the
     * task), delivered through the context's {@link #ANSWER_EXECUTOR} when there is one.
     */
    static <T> Mono<T> toMono(Task<T> task) {
        return Mono.create(sink -> {
            Executor answer = sink.contextView().getOrDefault(ANSWER_EXECUTOR, null);
            Registration r = task.onComplete(answer == null
                    ? outcome -> deliver(sink, outcome)
                    : outcome -> answer.execute(() -> deliver(sink, outcome)));
            sink.onCancel(() -> {
                r.dispose();
                task.cancel();
            });
        });
    }

    private static <T> void deliver(MonoSink<T> sink, Outcome<T> outcome) {
        switch (outcome) {
            case Outcome.Success<T> s -> sink.success(s.value());
            case Outcome.Failure<T> f -> sink.error(f.error());
            case Outcome.Cancelled<T> c -> sink.error(c.cause());
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ReactiveAdapterRegistry registry) {
            register(registry);
        }
        return bean;
    }
}
