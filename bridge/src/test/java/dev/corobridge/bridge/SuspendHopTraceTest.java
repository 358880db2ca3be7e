package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Java doors to coroutines ({@code Task.startSuspend}, {@code TaskScope.fork}/{@code forkSuspend})
 * record their hops like {@code thenOn} chains do, and name kotlinx's pools readably.
 */
class SuspendHopTraceTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final SingleThreadContext a = new SingleThreadContext("A");
    private final SingleThreadContext b = new SingleThreadContext("B");
    private final HopRoutes routes = new HopRoutes(a, b);

    @AfterEach
    void tearDown() {
        a.close();
        b.close();
    }

    private static List<String> contexts(Task<?> task) {
        return task.getTrace().getHops().stream().map(Hop::context).toList();
    }

    @Test
    void fromSuspendRecordsEveryHopInOrder() throws Exception {
        Task<String> task = Task.startSuspend(a, routes::crossToB);
        String result = task.join(WAIT);
        assertTrue(result.startsWith("arrived@B-thread"), result); // kotlinx debug mode may suffix thread names
        assertEquals(List.of("A", "Dispatchers.Default", "A", "B", "A"), contexts(task), task.getTrace().toString());
    }

    @Test
    void aFromSuspendFailureCarriesTheHopsToJavaJoin() {
        Task<String> task = Task.startSuspend(a, routes::failOnB);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> task.join(WAIT));
        assertEquals("failed on B", e.getMessage());
        HopTraceException hops = (HopTraceException) Arrays.stream(e.getSuppressed())
                .filter(HopTraceException.class::isInstance).findFirst()
                .orElseThrow(() -> new AssertionError("no HopTraceException on " + e));
        String message = hops.getMessage();
        for (String step : List.of("1. A @ A-thread", "2. Dispatchers.Default @ DefaultDispatcher-worker", "3. A @ A-thread", "4. B @ B-thread")) {
            assertTrue(message.contains(step), message);
        }
    }

    @Test
    void forksRecordTheirHops() throws Exception {
        try (TaskScope scope = TaskScope.open("hops")) {
            Task<String> plain = scope.fork(a, () -> Thread.currentThread().getName());
            Task<String> suspending = scope.forkSuspend(a, routes::crossToB);
            scope.joinAll();
            assertTrue(plain.resultNow().startsWith("A-thread"), plain.resultNow());
            assertEquals(List.of("A"), contexts(plain));
            assertEquals(List.of("A", "Dispatchers.Default", "A", "B", "A"), contexts(suspending), suspending.getTrace().toString());
        }
    }

    @Test
    void aThenOnAfterACoroutineTaskContinuesItsTrace() throws Exception {
        Task<String> shown = Task.startSuspend(a, routes::crossToB).thenOn(b, v -> v + " shown");
        assertTrue(shown.join(WAIT).endsWith(" shown"));
        assertEquals(List.of("A", "Dispatchers.Default", "A", "B", "A", "B"), contexts(shown), shown.getTrace().toString());
    }

    @Test
    void kotlinxPoolsAreNamedAsKotlinNamesThem() throws Exception {
        Task<String> onDefault = Task.start(Dispatchers.getDefault(), () -> "x");
        Task<String> onIo = Task.start(Dispatchers.getIO(), () -> "y");
        onDefault.join(WAIT);
        onIo.join(WAIT);
        assertEquals(List.of("Dispatchers.Default"), contexts(onDefault));
        assertEquals(List.of("Dispatchers.IO"), contexts(onIo));
        Task<String> suspending = Task.startSuspend(Dispatchers.getIO(), routes::crossToB);
        suspending.join(WAIT);
        assertEquals("Dispatchers.IO", contexts(suspending).get(0));
    }
}
