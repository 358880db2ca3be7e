package dev.corobridge.spring;

import dev.corobridge.bridge.Task;
import dev.corobridge.reactor.TaskMono;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ReactiveTypeDescriptor;

/**
 * Makes {@link Task} a reactive type: a {@code BeanPostProcessor} that registers it on every
 * {@link ReactiveAdapterRegistry} bean, WebFlux's {@code webFluxAdapterRegistry} among them, so a
 * controller method may return {@code Task<T>}. WebFlux subscribes to {@link TaskMono#toMono(Task)}; when
 * the client goes away WebFlux cancels that subscription, which cancels the task.
 */
public final class TaskReactiveAdapters implements BeanPostProcessor {

    /**
     * Registers {@link Task} on {@code registry} as a single optional value (an empty publisher
     * becomes a task completed with {@code null}). Idempotent: a later call replaces the adapter.
     */
    public static void register(ReactiveAdapterRegistry registry) {
        registry.registerReactiveTypeOverride(
                ReactiveTypeDescriptor.singleOptionalValue(Task.class, () -> Task.completed(null)),
                source -> TaskMono.toMono((Task<?>) source),
                TaskMono::fromPublisher);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof ReactiveAdapterRegistry registry) {
            register(registry);
        }
        return bean;
    }
}
