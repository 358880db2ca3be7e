package dev.corobridge.observation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.HopNote;
import dev.corobridge.bridge.SingleThreadContext;
import dev.corobridge.bridge.Task;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A scoped installation ({@link TaskObservations#installScoped}) observes only the tasks of its
 * registry's traces: two applications in one JVM (two Spring contexts, a cached test context
 * next to another) each see their own tasks, and once one uninstalls, its tasks are no longer
 * observed while the other's still are.
 */
class ScopedTaskObservationsTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final SingleThreadContext pump = new SingleThreadContext("scoped-pump");
    private final TaskObservationsTest.Recorder firstRecorder = new TaskObservationsTest.Recorder();
    private final TaskObservationsTest.Recorder secondRecorder = new TaskObservationsTest.Recorder();
    private final ObservationRegistry first = ObservationRegistry.create();
    private final ObservationRegistry second = ObservationRegistry.create();

    ScopedTaskObservationsTest() {
        first.observationConfig().observationHandler(firstRecorder);
        second.observationConfig().observationHandler(secondRecorder);
    }

    @AfterEach
    void tearDown() {
        pump.close();
    }

    /** Runs a task created while {@code request} (of some registry) is current, and its stage. */
    private void runUnder(Observation request, String label) throws Exception {
        Task<Integer> chain;
        try (Observation.Scope s = request.openScope()) {
            chain = Task.start(HopNote.on(pump, label), () -> 1).thenOn(HopNote.on(pump, label + " stage"), v -> v + 1);
        }
        assertEquals(2, chain.join(WAIT));
        request.stop();
    }

    private static List<String> tasks(TaskObservationsTest.Recorder recorder) {
        return recorder.stopped.stream().filter(c -> TaskObservations.NAME.equals(c.getName()))
                .map(Observation.Context::getContextualName).toList();
    }

    @Test
    void twoInstallationsEachObserveTheTasksOfTheirOwnRegistrysTraces() throws Exception {
        try (AutoCloseable a = TaskObservations.installScoped(first);
             AutoCloseable b = TaskObservations.installScoped(second)) {
            runUnder(Observation.start("request of the first", first), "first's");
            runUnder(Observation.start("request of the second", second), "second's");
            assertEquals(List.of("first's", "first's stage"), tasks(firstRecorder));
            assertEquals(List.of("second's", "second's stage"), tasks(secondRecorder));
            assertSame(firstRecorder.task("first's").getParentObservation().getContextView(),
                    firstRecorder.stopped.stream().filter(c -> "request of the first".equals(c.getName())).findFirst().orElseThrow());

            Task.start(HopNote.on(pump, "outside any trace"), () -> 3).join(WAIT);
            assertFalse(tasks(firstRecorder).contains("outside any trace"), "not part of the first's traces");
            assertFalse(tasks(secondRecorder).contains("outside any trace"), "not part of the second's traces");
        }
    }

    @Test
    void onceUninstalledItsTasksAreNoLongerObservedAndTheOthersStillAre() throws Exception {
        AutoCloseable a = TaskObservations.installScoped(first);
        try (AutoCloseable b = TaskObservations.installScoped(second)) {
            a.close(); // the first application's context closed
            runUnder(Observation.start("request of the first", first), "after close");
            runUnder(Observation.start("request of the second", second), "still observed");
            assertEquals(List.of(), tasks(firstRecorder));
            assertEquals(List.of(), tasks(secondRecorder).stream().filter(n -> n.startsWith("after close")).toList(),
                    "the first's tasks do not become the second's spans");
            assertEquals(List.of("still observed", "still observed stage"), tasks(secondRecorder));
            assertTrue(TaskObservations.isInstalled());
        }
        assertFalse(TaskObservations.isInstalled());
    }

    @Test
    void aJvmWideInstallationStillObservesEveryTask() throws Exception {
        try (AutoCloseable scoped = TaskObservations.installScoped(first);
             AutoCloseable everything = TaskObservations.install(second)) {
            runUnder(Observation.start("request of the first", first), "first's");
            Task.start(HopNote.on(pump, "anywhere"), () -> 3).join(WAIT);
            assertEquals(List.of("first's", "first's stage"), tasks(firstRecorder), "a trace of the first is the first's");
            assertEquals(List.of("anywhere"), tasks(secondRecorder));
        }
    }
}
