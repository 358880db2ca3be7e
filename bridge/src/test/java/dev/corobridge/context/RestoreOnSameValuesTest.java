package dev.corobridge.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.corobridge.bridge.Task;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * A restore on a thread that already holds the captured values (the capturing thread itself, a
 * step run inline): the observation already in scope is not given a second scope (its handlers,
 * a tracer's among them, see no extra open and close), and closing still gives the thread its own
 * values back, also when the step left another scope open.
 */
class RestoreOnSameValuesTest {

    private final ObservationRegistry registry = ObservationRegistry.create();
    private final AtomicInteger opened = new AtomicInteger();
    private final AtomicInteger closed = new AtomicInteger();

    RestoreOnSameValuesTest() {
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onScopeOpened(Observation.Context context) {
                opened.incrementAndGet();
            }

            @Override
            public void onScopeClosed(Observation.Context context) {
                closed.incrementAndGet();
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
    }

    @AfterEach
    void clean() {
        MDC.clear();
    }

    @Test
    void aRestoreWhereTheObservationIsAlreadyInScopeOpensNoSecondScope() {
        Observation request = Observation.start("request", registry);
        try (Observation.Scope s = request.openScope()) {
            MDC.put("request", "r-1");
            CapturedContext captured = ContextPropagation.capture();
            try (RestoredContext r = captured.restore()) {
                assertSame(request, registry.getCurrentObservation());
                assertEquals("r-1", MDC.get("request"));
            }
            assertSame(request, registry.getCurrentObservation(), "closing took the thread's own scope away");
            assertEquals("r-1", MDC.get("request"));
            assertEquals(1, opened.get(), "scopes opened: the request's own, and no other");
            assertEquals(0, closed.get());
        }
        assertEquals(1, closed.get());
        request.stop();
    }

    @Test
    void aStepThatLeavesAnotherScopeOpenGetsTheThreadsOwnObservationBack() {
        Observation request = Observation.start("request", registry);
        Observation inner = Observation.start("inner", registry);
        try (Observation.Scope s = request.openScope()) {
            CapturedContext captured = ContextPropagation.capture();
            try (RestoredContext r = captured.restore()) {
                inner.openScope(); // never closed by the step
                assertSame(inner, registry.getCurrentObservation());
            }
            assertSame(request, registry.getCurrentObservation(), "the step's scope outlived it");
        }
        assertEquals(null, registry.getCurrentObservation());
        inner.stop();
        request.stop();
    }

    @Test
    void aTaskRunInlineOnTheCapturingThreadSeesTheContextAndOpensNoScope() throws Exception {
        Executor inline = Runnable::run;
        Observation request = Observation.start("request", registry);
        try (Observation.Scope s = request.openScope()) {
            MDC.put("request", "r-2");
            Task<String> t = Task.start(inline, () -> MDC.get("request") + " " + (registry.getCurrentObservation() == request));
            assertEquals("r-2 true", t.join(Duration.ofSeconds(30)));
            assertSame(request, registry.getCurrentObservation());
            assertEquals("r-2", MDC.get("request"));
            assertEquals(1, opened.get());
        }
        request.stop();
    }
}
