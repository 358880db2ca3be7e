package dev.corobridge.observation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.HopNote;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.SingleThreadContext;
import dev.corobridge.bridge.Task;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 15, item 3: one Observation per task that runs work — name, label, context, hops as events,
 * outcome — whose parent is the observation current where the task was created, and which is
 * current while the work runs.
 */
class TaskObservationsTest {

    static final Duration WAIT = Duration.ofSeconds(30);

    private final SingleThreadContext pump = new SingleThreadContext("obs-pump");
    final Recorder recorder = new Recorder();
    final ObservationRegistry registry = ObservationRegistry.create();
    private final AutoCloseable installed;

    TaskObservationsTest() {
        registry.observationConfig().observationHandler(recorder);
        installed = TaskObservations.install(registry);
    }

    @AfterEach
    void tearDown() throws Exception {
        installed.close();
        pump.close();
    }

    /** Records what the handlers see, per observation context. */
    static final class Recorder implements ObservationHandler<Observation.Context> {
        final List<Observation.Context> started = new CopyOnWriteArrayList<>();
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public void onStart(Observation.Context context) {
            started.add(context);
        }

        /** The task observations started and not stopped. */
        List<Observation.Context> openTasks() {
            return started.stream().filter(c -> TaskObservations.NAME.equals(c.getName()) && !stopped.contains(c)).toList();
        }
        final Map<Observation.Context, List<String>> events = new ConcurrentHashMap<>();

        @Override
        public void onEvent(Observation.Event event, Observation.Context context) {
            events.computeIfAbsent(context, c -> new CopyOnWriteArrayList<>()).add(event.getName() + ": " + event.getContextualName());
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        /** The stopped task observation labelled {@code contextualName}: it stops before the task's awaiters resume. */
        Observation.Context task(String contextualName) {
            for (Observation.Context c : stopped) {
                if (TaskObservations.NAME.equals(c.getName()) && contextualName.equals(c.getContextualName())) {
                    return c;
                }
            }
            throw new AssertionError("no stopped task observation '" + contextualName + "' in " + stopped);
        }
    }

    private static String key(Observation.Context c, String key) {
        var kv = c.getLowCardinalityKeyValue(key);
        return kv == null ? null : kv.getValue();
    }

    @Test
    void aStartedTaskAndItsStagesAreObservedAsChildrenOfTheCreatorsObservationAndAreCurrentWhileTheyRun() throws Exception {
        Observation request = Observation.start("request", registry);
        Task<Observation> first;
        Task<Observation> second;
        try (Observation.Scope s = request.openScope()) {
            first = Task.start(HopNote.on(pump, "load"), registry::getCurrentObservation);
            second = first.thenOn(HopNote.on(Dispatchers.getDefault(), "render"), o -> registry.getCurrentObservation());
        }
        Observation inFirst = first.join(WAIT);
        Observation inSecond = second.join(WAIT);
        request.stop();

        Observation.Context load = recorder.task("load");
        Observation.Context render = recorder.task("render");
        assertSame(load, inFirst.getContext(), "the task's observation is current while it runs");
        assertSame(render, inSecond.getContext());
        assertSame(request, load.getParentObservation(), "parent: the observation current where the task was created");
        assertSame(request, render.getParentObservation(), "a stage carries the first task's context");
        assertEquals("obs-pump", key(load, TaskObservations.CONTEXT_KEY));
        assertEquals("Dispatchers.Default", key(render, TaskObservations.CONTEXT_KEY));
        assertEquals("success", key(load, TaskObservations.OUTCOME_KEY));
        assertEquals(List.of("corobridge.hop: obs-pump (load) @ obs-pump-thread"), recorder.events.get(load));
        assertNull(registry.getCurrentObservation(), "nothing left current on the test thread");
        Observation unrelated = Task.start(pump, registry::getCurrentObservation).join(WAIT);
        assertNull(unrelated.getContext().getParentObservation(), "nothing left current on the pump: the next task's own observation has no parent");
    }

    /** The observation at the root of {@code c}'s parents: one root, one trace. */
    private static Observation.ContextView root(Observation.ContextView c) {
        Observation.ContextView at = c;
        while (at.getParentObservation() != null) {
            at = at.getParentObservation().getContextView();
        }
        return at;
    }

    @Test
    void aJavaChainStartedWithoutACurrentObservationIsOneTraceAcrossItsContexts() throws Exception {
        try (SingleThreadContext ring = new SingleThreadContext("obs-ring")) {
            assertNull(registry.getCurrentObservation());
            Task<Integer> chain = Task.start(HopNote.on(pump, "first"), () -> 1)
                    .thenOn(HopNote.on(ring, "io"), v -> v + 1)
                    .thenOn(HopNote.on(pump, "last"), v -> v + 1);
            assertEquals(3, chain.join(WAIT));

            Observation.Context first = recorder.task("first");
            Observation.Context io = recorder.task("io");
            Observation.Context last = recorder.task("last");
            assertNull(first.getParentObservation(), "nothing was current: the chain's first stage is its root");
            assertSame(first, root(io), "the ring stage is in the chain's trace");
            assertSame(first, root(last), "the pump stage after it too");
            assertEquals("obs-ring", key(io, TaskObservations.CONTEXT_KEY));
        }
    }

    @Test
    void failureAndCancellationAreTheObservationsOutcome() throws Exception {
        Task<Object> failing = Task.start(HopNote.on(pump, "fails"), () -> { throw new IllegalStateException("boom"); });
        assertThrows(IllegalStateException.class, () -> failing.join(WAIT));
        Observation.Context failed = recorder.task("fails");
        assertEquals("failure", key(failed, TaskObservations.OUTCOME_KEY));
        assertEquals("boom", failed.getError().getMessage());

        Promise<Integer> gate = new Promise<>();
        CountDownLatch running = new CountDownLatch(1);
        Task<Integer> blocked = Task.start(HopNote.on(pump, "blocked"), () -> { running.countDown(); return gate.join(); });
        assertTrue(running.await(30, TimeUnit.SECONDS));
        blocked.cancel(); // decided while its body still runs
        gate.complete(1);
        assertThrows(CancellationException.class, () -> blocked.join(WAIT));
        Observation.Context cancelled = recorder.task("blocked");
        assertEquals("cancelled", key(cancelled, TaskObservations.OUTCOME_KEY));
        assertNull(cancelled.getError());

        long before = recorder.stopped.size();
        Task<Integer> skipped = Task.<Integer>failed(new IllegalStateException("x")).thenOn(HopNote.on(pump, "skipped"), x -> x);
        assertThrows(IllegalStateException.class, () -> skipped.join(WAIT));
        assertEquals(before, recorder.stopped.size(), "a stage that never runs is not observed");
    }

    @Test
    void afterUninstallingNothingIsObserved() throws Exception {
        installed.close();
        assertFalse(TaskObservations.isInstalled());
        Task.start(HopNote.on(pump, "unobserved"), () -> 1).join(WAIT);
        Task.start(pump, () -> 2).join(WAIT);
        assertTrue(recorder.stopped.stream().noneMatch(c -> TaskObservations.NAME.equals(c.getName())), recorder.stopped.toString());
    }

    @Test
    void aNoopRegistryMakesNoObservation() throws Exception {
        installed.close();
        try (AutoCloseable noop = TaskObservations.install(ObservationRegistry.NOOP)) {
            assertTrue(TaskObservations.isInstalled());
            assertNull(Task.start(pump, registry::getCurrentObservation).join(WAIT));
        }
    }

    /** A handler that throws from the callbacks a test names, as a broken tracing bridge might. */
    static final class Throwing implements ObservationHandler<Observation.Context> {
        volatile boolean onEvent;
        volatile boolean onStart;
        volatile boolean onError;

        @Override
        public void onStart(Observation.Context context) {
            if (onStart && TaskObservations.NAME.equals(context.getName())) {
                throw new IllegalStateException("onStart refused");
            }
        }

        @Override
        public void onError(Observation.Context context) {
            if (onError) {
                throw new IllegalStateException("onError refused");
            }
        }
        /** How many more scope openings throw. */
        final java.util.concurrent.atomic.AtomicInteger scopeOpenings = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void onEvent(Observation.Event event, Observation.Context context) {
            if (onEvent) {
                throw new IllegalStateException("onEvent refused");
            }
        }

        /** How many more scope closings throw. */
        final java.util.concurrent.atomic.AtomicInteger scopeClosings = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public void onScopeOpened(Observation.Context context) {
            if (scopeOpenings.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("onScopeOpened refused");
            }
        }

        @Override
        public void onScopeClosed(Observation.Context context) {
            if (scopeClosings.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException("onScopeClosed refused");
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    @Test
    void aStepWhoseHopEventThrowsStillEndsItsObservationAndTheTaskKeepsItsValue() throws Exception {
        Throwing throwing = new Throwing();
        registry.observationConfig().observationHandler(throwing);
        throwing.onEvent = true;
        assertEquals(7, Task.start(HopNote.on(pump, "hop throws"), () -> 7).join(WAIT));
        Observation.Context ended = recorder.task("hop throws");
        assertEquals("success", key(ended, TaskObservations.OUTCOME_KEY));
    }

    @Test
    void aFailedStepWhoseErrorHandlerThrowsStillStopsItsObservation() throws Exception {
        Throwing throwing = new Throwing();
        registry.observationConfig().observationHandler(throwing);
        throwing.onError = true;
        Task<Object> failing = Task.start(HopNote.on(pump, "error throws"), () -> { throw new IllegalStateException("work failed"); });
        assertThrows(IllegalStateException.class, () -> failing.join(WAIT));
        Observation.Context ended = recorder.task("error throws"); // stopped before the awaiter resumed
        assertEquals("failure", key(ended, TaskObservations.OUTCOME_KEY));
        assertEquals("work failed", ended.getError().getMessage());
        assertEquals(List.of(), recorder.openTasks());
    }

    @Test
    void aStepWhoseObservationCannotStartLeavesNoObservationOpenForTheHandlersThatSawItStart() throws Exception {
        Throwing throwing = new Throwing();
        registry.observationConfig().observationHandler(throwing); // after the recorder: the recorder sees onStart
        throwing.onStart = true;
        assertNull(Task.start(HopNote.on(pump, "start throws"), registry::getCurrentObservation).join(WAIT),
                "the work runs unobserved");
        assertEquals(1, recorder.started.stream().filter(c -> TaskObservations.NAME.equals(c.getName())).count());
        assertEquals(List.of(), recorder.openTasks(), "a handler saw the observation start and never stop");
        throwing.onStart = false;
        assertEquals(1, Task.start(HopNote.on(pump, "after"), () -> 1).join(WAIT));
        assertEquals("success", key(recorder.task("after"), TaskObservations.OUTCOME_KEY));
    }

    @Test
    void aStageAfterOneSkippedByAFailureStaysInTheChainsTrace() throws Exception {
        assertNull(registry.getCurrentObservation());
        Task<Integer> chain = Task.<Integer>start(HopNote.on(pump, "fails first"), () -> { throw new IllegalStateException("x"); })
                .thenOn(HopNote.on(pump, "skipped"), v -> v + 1)
                .recoverOn(HopNote.on(pump, "recovers"), e -> 42);
        assertEquals(42, chain.join(WAIT));
        Observation.Context first = recorder.task("fails first");
        Observation.Context recovers = recorder.task("recovers");
        assertNull(first.getParentObservation());
        assertSame(first, root(recovers), "the recovering stage began a trace of its own");
    }

    @Test
    void forksOnAPlainExecutorAreNamedAfterItsClassNotItsChangingToString() throws Exception {
        // A ThreadPoolExecutor's toString() carries its identity hash and live counters: as the
        // observation's contextual name (a span's name) it would be a new name per task.
        java.util.concurrent.ThreadPoolExecutor pool = new java.util.concurrent.ThreadPoolExecutor(
                1, 1, 0, TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>());
        try (dev.corobridge.bridge.TaskScope scope = dev.corobridge.bridge.TaskScope.open("forks")) {
            for (int i = 0; i < 3; i++) {
                assertEquals(1, scope.fork(pool, () -> 1).join(WAIT));
            }
        } finally {
            pool.shutdownNow();
        }
        List<String> names = recorder.stopped.stream().filter(c -> TaskObservations.NAME.equals(c.getName()))
                .map(Observation.Context::getContextualName).toList();
        assertEquals(List.of("ThreadPoolExecutor", "ThreadPoolExecutor", "ThreadPoolExecutor"), names);
    }

    @Test
    void aStepWhoseScopeCannotOpenRunsUnobservedAndLeavesNoScopeOnItsThread() throws Exception {
        Throwing throwing = new Throwing();
        registry.observationConfig().observationHandler(throwing);
        throwing.scopeOpenings.set(1);
        assertNull(Task.start(HopNote.on(pump, "scope throws"), registry::getCurrentObservation).join(WAIT));
        assertEquals("success", key(recorder.task("scope throws"), TaskObservations.OUTCOME_KEY));
        installed.close();
        assertNull(Task.start(pump, registry::getCurrentObservation).join(WAIT), "a scope was left current on the pump");
    }

    @Test
    void aStepWhoseScopeCannotCloseLeavesNoScopeOnItsThread() throws Exception {
        Throwing throwing = new Throwing();
        registry.observationConfig().observationHandler(throwing);
        throwing.scopeClosings.set(1);
        Observation inStep = Task.start(HopNote.on(pump, "close throws"), registry::getCurrentObservation).join(WAIT);
        assertSame(recorder.task("close throws"), inStep.getContext());
        installed.close();
        assertNull(Task.start(pump, registry::getCurrentObservation).join(WAIT), "the step's scope was left current on the pump");
    }
}
