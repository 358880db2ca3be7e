package dev.corobridge.spring;

import dev.corobridge.observation.TaskObservations;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.DisposableBean;

/**
 * The application's {@code ObservationRegistry} installed for tasks
 * ({@link TaskObservations#install}) for as long as this bean lives: from its creation to the
 * context's close. Thread-safety: created and destroyed by the container.
 */
final class TaskObservationInstallation implements DisposableBean {

    private final AutoCloseable installed;

    TaskObservationInstallation(ObservationRegistry registry) {
        this.installed = TaskObservations.install(registry);
    }

    @Override
    public void destroy() throws Exception {
        installed.close();
    }
}
