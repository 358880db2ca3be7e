package dev.corobridge.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.context.internal.ContextSteps;
import io.micrometer.context.ContextRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * The scope a task's step restores its context into is shared by every step of that context on a
 * thread that had nothing before, and a capture inside a step whose values are unchanged hands out
 * the step's own context. Neither may let a step's values outlive it: after every exit of a step
 * (value, failure, cancellation) the next unrelated step and plain runnables on the same thread see
 * nothing of it — no MDC, no registered thread-local, no observation in scope — and every
 * observation scope opened for a step is closed again.
 */
class SharedStepScopeTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    static final ThreadLocal<String> TENANT = new ThreadLocal<>();
    private static final String TENANT_KEY = "test.shared.tenant";

    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> new Thread(r, "shared-scope-worker"));
    private final ObservationRegistry observations = ObservationRegistry.create();
    private final AtomicInteger opened = new AtomicInteger();
    private final AtomicInteger closed = new AtomicInteger();
    private ObservationRegistry accessorsRegistryBefore;

    @BeforeAll
    static void register() {
        ContextRegistry.getInstance().registerThreadLocalAccessor(TENANT_KEY, TENANT);
    }

    @AfterAll
    static void unregister() {
        ContextRegistry.getInstance().removeThreadLocalAccessor(TENANT_KEY);
    }

    SharedStepScopeTest() {
        observations.observationConfig().observationHandler(new ObservationHandler<>() {
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
        accessorsRegistryBefore = ObservationThreadLocalAccessor.getInstance().getObservationRegistry();
        ObservationThreadLocalAccessor.getInstance().setObservationRegistry(observations);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        ObservationThreadLocalAccessor.getInstance().setObservationRegistry(accessorsRegistryBefore);
        MDC.clear();
        TENANT.remove();
        worker.shutdown();
        assertTrue(worker.awaitTermination(30, TimeUnit.SECONDS));
    }

    /** What plain code on the worker sees: must be "null/null/null" after any step. */
    private String plainRunnableSees() throws Exception {
        return worker.submit(SharedStepScopeTest::seen).get(30, TimeUnit.SECONDS);
    }

    private static String seen() {
        Observation current = ObservationThreadLocalAccessor.getInstance().getValue();
        return MDC.get("request") + "/" + TENANT.get() + "/" + (current == null ? null : current.getContext().getName());
    }

    /** Runs {@code body} with a request context (MDC, tenant, observation in scope) on this thread. */
    private <T> T inRequest(String id, java.util.concurrent.Callable<T> body) throws Exception {
        Observation request = Observation.start("obs-" + id, observations);
        MDC.put("request", id);
        TENANT.set("t-" + id);
        try (Observation.Scope s = request.openScope()) {
            return body.call();
        } finally {
            MDC.remove("request");
            TENANT.remove();
            request.stop();
        }
    }

    @Test
    void afterEveryExitOfAStepPlainCodeOnTheThreadSeesNothingOfIt() throws Exception {
        for (int round = 0; round < 3; round++) { // the second and third rounds reuse the shared scope
            Task<String> value = inRequest("r-value", () -> Task.start(worker, SharedStepScopeTest::seen));
            assertEquals("r-value/t-r-value/obs-r-value", value.join(WAIT));
            assertEquals("null/null/null", plainRunnableSees(), "after a step that returned a value");

            Task<String> failing = inRequest("r-fail", () -> Task.start(worker, () -> {
                throw new IllegalStateException("failed with " + seen());
            }));
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> failing.toCompletableFuture().get(30, TimeUnit.SECONDS));
            assertEquals("failed with r-fail/t-r-fail/obs-r-fail", e.getCause().getMessage());
            assertEquals("null/null/null", plainRunnableSees(), "after a step that failed");

            Task<String> cancelled = inRequest("r-cancel", () -> Task.start(worker, () -> {
                throw new CancellationException("cancelled with " + seen());
            }));
            assertThrows(CancellationException.class, () -> cancelled.join(WAIT));
            assertEquals("null/null/null", plainRunnableSees(), "after a step that was cancelled");
        }
        assertEquals(opened.get(), closed.get(), "every scope opened was closed: " + opened + " / " + closed);
    }

    @Test
    void aStepOfOneContextRightAfterAStepOfAnotherSeesOnlyItsOwn() throws Exception {
        Promise<Integer> gate = new Promise<>();
        CountDownLatch blocked = new CountDownLatch(1);
        Task<Integer> blocker = Task.start(worker, () -> {
            blocked.countDown();
            return gate.join();
        });
        assertTrue(blocked.await(30, TimeUnit.SECONDS));
        // Queued behind the blocker, run back to back: a, b, plain, a's stage, b's stage, plain.
        List<Task<String>> tasks = new ArrayList<>();
        List<java.util.concurrent.Future<String>> plain = new ArrayList<>();
        Task<String> a = inRequest("a", () -> Task.start(worker, SharedStepScopeTest::seen));
        Task<String> b = inRequest("b", () -> Task.start(worker, SharedStepScopeTest::seen));
        plain.add(worker.submit(SharedStepScopeTest::seen));
        tasks.add(a.thenOn(worker, first -> first + " then " + seen()));
        tasks.add(b.thenOn(worker, first -> first + " then " + seen()));
        gate.complete(1);
        assertEquals(1, blocker.join(WAIT));
        plain.add(worker.submit(SharedStepScopeTest::seen));
        assertEquals("a/t-a/obs-a then a/t-a/obs-a", tasks.get(0).join(WAIT));
        assertEquals("b/t-b/obs-b then b/t-b/obs-b", tasks.get(1).join(WAIT));
        for (java.util.concurrent.Future<String> f : plain) {
            assertEquals("null/null/null", f.get(30, TimeUnit.SECONDS));
        }
        // A stage's value is published inside its step, before the step's scope is closed: count
        // the scopes once the worker has run something after the last step.
        assertEquals("null/null/null", plainRunnableSees(), "after the last step");
        assertEquals(opened.get(), closed.get(), "every scope opened was closed: " + opened + " / " + closed);
    }

    @Test
    void aCaptureInsideAStepIsTheStepsContextWhileItsValuesAreUnchanged() throws Exception {
        CapturedContext request = inRequest("r-1", ContextPropagation::capture);
        List<Object> seen = worker.submit(() -> {
            List<Object> out = new ArrayList<>();
            RestoredContext step = ContextSteps.enter(request);
            try {
                out.add(ContextPropagation.capture()); // unchanged: the step's own context
                MDC.put("extra", "x");
                CapturedContext changed = ContextPropagation.capture();
                out.add(changed);
                try (RestoredContext again = changed.restore()) {
                    out.add(MDC.get("extra") + "/" + MDC.get("request") + "/" + TENANT.get());
                }
                MDC.remove("extra");
            } finally {
                step.close();
            }
            out.add(ContextPropagation.capture()); // after the step: nothing, not the step's context
            out.add(seen());
            return out;
        }).get(30, TimeUnit.SECONDS);
        assertSame(request, seen.get(0));
        assertNotSame(request, seen.get(1), "the step changed its MDC: a capture of its own");
        assertEquals("x/r-1/t-r-1", seen.get(2));
        assertSame(CapturedContext.NONE, seen.get(3));
        assertEquals("null/null/null", seen.get(4));
    }

    @Test
    void theSharedScopeOfACleanThreadIsOnlyUsedOnACleanThread() throws Exception {
        CapturedContext a = inRequest("a", ContextPropagation::capture);
        CapturedContext b = inRequest("b", ContextPropagation::capture);
        List<String> seen = worker.submit(() -> {
            List<String> out = new ArrayList<>();
            TENANT.set("own");
            MDC.put("request", "own");
            RestoredContext stepA = ContextSteps.enter(a); // the thread has values: a scope of its own
            RestoredContext stepB = ContextSteps.enter(b); // nested in a step: a scope of its own
            out.add(seen());
            stepB.close();
            out.add(seen());
            stepA.close();
            out.add(seen());
            MDC.clear();
            TENANT.remove();
            RestoredContext clean1 = ContextSteps.enter(a);
            clean1.close();
            RestoredContext clean2 = ContextSteps.enter(a);
            out.add(String.valueOf(clean1 == clean2));
            clean2.close();
            out.add(seen());
            return out;
        }).get(30, TimeUnit.SECONDS);
        assertEquals(List.of("b/t-b/obs-b", "a/t-a/obs-a", "own/own/null", "true", "null/null/null"), seen);
        assertNull(MDC.get("request"));
    }
}
