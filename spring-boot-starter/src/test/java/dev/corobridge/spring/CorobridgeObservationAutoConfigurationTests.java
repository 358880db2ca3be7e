package dev.corobridge.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.corobridge.bridge.Task;
import dev.corobridge.observation.TaskObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
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
        for (String off : new String[] {"off", "no", "FALSE"}) { // every spelling that binds to false
            runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                    .withPropertyValues("corobridge.observation.enabled=" + off)
                    .run(context -> assertThat(context).as(off).doesNotHaveBean(TaskObservationInstallation.class));
        }
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withPropertyValues("corobridge.observation.enabled=yes")
                .run(context -> assertThat(context).hasSingleBean(TaskObservationInstallation.class));
        runner.run(context -> assertThat(context).doesNotHaveBean(TaskObservationInstallation.class));
        runner.withBean(ObservationRegistry.class, ObservationRegistry::create)
                .withClassLoader(new FilteredClassLoader("io.micrometer.tracing"))
                .run(context -> assertThat(context).doesNotHaveBean(TaskObservationInstallation.class));
        assertThat(TaskObservations.isInstalled()).isFalse();
    }

    /** An application's registry and the task observations it stopped (their labels). */
    private static final class App {
        final ObservationRegistry registry = ObservationRegistry.create();
        final List<String> tasks = new CopyOnWriteArrayList<>();

        App() {
            registry.observationConfig().observationHandler(new ObservationHandler<>() {
                @Override
                public void onStop(Observation.Context context) {
                    if (TaskObservations.NAME.equals(context.getName())) {
                        tasks.add(context.getContextualName());
                    }
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            });
        }

        /** Runs a task created while a request observation of this application is current. */
        void handleRequest(String label) throws Exception {
            Observation request = Observation.start("request", registry);
            Task<Integer> task;
            try (Observation.Scope s = request.openScope()) {
                task = Task.start(dev.corobridge.bridge.HopNote.on(DIRECT, label), () -> 1);
            }
            task.join(Duration.ofSeconds(30));
            request.stop();
        }
    }

    private static final Executor DIRECT = Runnable::run;

    @Test
    void twoContextsEachObserveTheirOwnTasksAndAClosedOneNoLonger() throws Exception {
        App first = new App();
        App second = new App();
        runner.withBean(ObservationRegistry.class, () -> first.registry).run(firstContext -> {
            runner.withBean(ObservationRegistry.class, () -> second.registry).run(secondContext -> {
                first.handleRequest("first's request");
                second.handleRequest("second's request");
            });
            first.handleRequest("first's, after the second closed");
            second.handleRequest("second's, after it closed");
        });
        first.handleRequest("first's, after it closed");

        assertThat(first.tasks).containsExactly("first's request", "first's, after the second closed");
        assertThat(second.tasks).containsExactly("second's request");
        assertThat(TaskObservations.isInstalled()).isFalse();
    }
}
