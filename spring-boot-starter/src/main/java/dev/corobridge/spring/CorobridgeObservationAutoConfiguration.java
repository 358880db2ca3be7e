package dev.corobridge.spring;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * Observes tasks ({@code dev.corobridge.observation.TaskObservations}: one Micrometer
 * {@code Observation} per task that runs work, a span of the request with its hops as events) when
 * Micrometer Tracing is on the class path and the application has an {@code ObservationRegistry};
 * off with {@code corobridge.observation.enabled=false}. The registry is installed, for the tasks of
 * its own traces only, when the context starts, and removed when it closes.
 *
 * <p>Context propagation needs nothing here: tasks carry the MDC and the thread-locals registered
 * with Micrometer's {@code ContextRegistry} (the current observation among them) by themselves. For
 * WebFlux handlers to see the request's observation on their own thread, enable Reactor's
 * automatic propagation ({@code spring.reactor.context-propagation=auto}).
 */
@AutoConfiguration(after = CorobridgeAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass(name = {"io.micrometer.observation.ObservationRegistry", "io.micrometer.tracing.Tracer"})
public class CorobridgeObservationAutoConfiguration {

    @Bean
    @ConditionalOnBean(ObservationRegistry.class)
    @Conditional(BoundSettings.ObservationEnabled.class)
    TaskObservationInstallation corobridgeTaskObservations(ObservationRegistry registry) {
        return new TaskObservationInstallation(registry);
    }
}
