package dev.corobridge.spring;

import dev.corobridge.observation.TaskObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.DisposableBean;

/**
 * The application's {@code ObservationRegistry} installed for the tasks of its own traces
 * ({@link TaskObservations#installScoped}) for as long as this bean lives: from its creation to
 * the context's close. Scoped, not JVM-wide: another context in the same JVM (a cached test
 * context) observes its own tasks with its own registry, and none are observed once this context
 * closed. Thread-safety: created and destroyed by the container.
 */
final class TaskObservationInstallation implements DisposableBean {

    private final AutoCloseable installed;

    TaskObservationInstallation(ObservationRegistry registry) {
        this.installed = TaskObservations.installScoped(registry);
    }

    @Override
    public void destroy() throws Exception {
        installed.close();
    }
}
