package dev.corobridge.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.corobridge.observation.TaskObservations;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Issue 15, item 3: the starter observes tasks when tracing is on the class path, for the context's life. */
class CorobridgeObservationAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeObservationAutoConfiguration.class));

    @Test
    void installsTheApplicationsRegistryForTheContextsLife() {
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(TaskObservationInstallation.class);
            assertThat(TaskObservations.isInstalled()).isTrue();
        });
        assertThat(TaskObservations.isInstalled()).as("removed when the context closed").isFalse();
    }

    @Test
    void staysOffWhenDisabledWithoutARegistryOrWithoutTracing() {
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withPropertyValues("corobridge.observation.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(TaskObservationInstallation.class));
        runner.run(context -> assertThat(context).doesNotHaveBean(TaskObservationInstallation.class));
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withClassLoader(new FilteredClassLoader("io.micrometer.tracing"))
                .run(context -> assertThat(context).doesNotHaveBean(TaskObservationInstallation.class));
        assertThat(TaskObservations.isInstalled()).isFalse();
    }
}
