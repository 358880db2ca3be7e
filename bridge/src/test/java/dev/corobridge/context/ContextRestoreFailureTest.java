package dev.corobridge.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Task;
import dev.corobridge.bridge.Tasks;
import io.micrometer.context.ContextRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * What a context restore promises when accessors misbehave: a step whose restore throws decides
 * its task with that failure and leaves the thread as it found it; putting the thread's values back
 * restores every registered thread-local whatever one of them throws; and a registered value the
 * step set is gone afterwards even when neither the task nor the thread had one (Micrometer's
 * "clear missing" contract).
 */
class ContextRestoreFailureTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Registered before {@link #FLAKY}, so restored after it (the registry's thread-locals are put back in reverse). */
    static final ThreadLocal<String> EARLY = new ThreadLocal<>();
    static final ThrowingAccessor FLAKY = new ThrowingAccessor("test.flaky");
    private static final String EARLY_KEY = "test.early";

    /** One thread, numbered: a step that kills its thread shows up as a probe running on "worker-2". */
    private final AtomicInteger threads = new AtomicInteger();
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> new Thread(r, "worker-" + threads.incrementAndGet()));
    private final List<Throwable> uncaught = new CopyOnWriteArrayList<>();
    private final BiConsumer<Awaitable<?>, Throwable> previousHandler = Tasks.setUncaughtFailureHandler((t, e) -> uncaught.add(e));

    @BeforeAll
    static void register() {
        ContextRegistry.getInstance().registerThreadLocalAccessor(EARLY_KEY, EARLY);
        ContextRegistry.getInstance().registerThreadLocalAccessor(FLAKY);
    }

    @AfterAll
    static void unregister() {
        ContextRegistry.getInstance().removeThreadLocalAccessor(FLAKY.key().toString());
        ContextRegistry.getInstance().removeThreadLocalAccessor(EARLY_KEY);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        Tasks.setUncaughtFailureHandler(previousHandler);
        FLAKY.stopFailing();
        EARLY.remove();
        MDC.clear();
        worker.shutdown();
        assertTrue(worker.awaitTermination(30, TimeUnit.SECONDS));
    }

    /** What the worker thread holds now, and which thread it is. */
    private String onWorker() throws Exception {
        return worker.submit(ContextRestoreFailureTest::here).get(30, TimeUnit.SECONDS);
    }

    private static String here() {
        return Thread.currentThread().getName() + " mdc=" + MDC.getCopyOfContextMap() + " early=" + EARLY.get()
                + " flaky=" + FLAKY.local.get();
    }

    /** The failure that decided {@code t} (null if it did not fail). */
    private static Throwable failureOf(Task<?> t) {
        return t.outcomeOrNull() instanceof Outcome.Failure<?> f ? f.error() : null;
    }

    // ------------------------------------------------------------------ clear missing

    @Test
    void aRegisteredValueTheStepSetIsGoneAfterItEvenWhenNeitherTheTaskNorTheThreadHadOne() throws Exception {
        MDC.put("request", "r-1"); // something to carry, but no registered value
        Task<String> t = Task.start(worker, () -> {
            EARLY.set("set by the step");
            return MDC.get("request");
        });
        MDC.clear();
        assertEquals("r-1", t.join(WAIT));
        assertEquals("worker-1 mdc=null early=null flaky=null", onWorker(), "the step's value stayed on the thread");
    }

    /**
     * Some accessors keep a stack of scopes per thread (Micrometer Tracing's span accessor:
     * {@code setValue()} re-scopes the thread's current frame and {@code restore()} pops it, whoever
     * pushed it), so one that had nothing to set and was left alone by the step is not called at all:
     * a nested restore must not pop the frame of an enclosing one.
     */
    @Test
    void anAccessorNeitherSideHadIsNotCalledWhenTheStepLeavesItAlone() throws Exception {
        MDC.put("request", "r-4"); // something to carry, but nothing for FLAKY
        Task<String> t = Task.start(worker, () -> MDC.get("request"));
        MDC.clear();
        assertEquals("r-4", t.join(WAIT));
        onWorker();
        assertEquals(0, FLAKY.clears.get(), "setValue()/restore() calls on an accessor nobody had a value for");
    }

    // ------------------------------------------------------------------ putting back

    @Test
    void anErrorFromOneAccessorsRestoreStillPutsBackEveryOtherThreadLocalAndTheMdc() {
        MDC.put("request", "captured");
        EARLY.set("captured");
        FLAKY.local.set("captured");
        CapturedContext ctx = ContextPropagation.capture();
        MDC.put("request", "own");
        EARLY.set("own");
        FLAKY.local.set("own");

        RestoredContext restored = ctx.restore();
        assertEquals("captured", EARLY.get());
        AssertionError unbalanced = new AssertionError("unbalanced scope"); // as ObservationThreadLocalAccessor throws under -ea
        FLAKY.failRestore = unbalanced;
        assertSame(unbalanced, assertThrows(AssertionError.class, restored::close));

        assertEquals("own", EARLY.get(), "an accessor after the failing one was not put back");
        assertEquals("own", MDC.get("request"));
    }

    @Test
    void whenSeveralAccessorsFailToRestoreTheFirstFailureIsThrownAndTheOthersAreSuppressed() {
        ThrowingAccessor second = new ThrowingAccessor("test.flaky.second");
        ContextRegistry.getInstance().registerThreadLocalAccessor(second);
        try {
            FLAKY.local.set("captured");
            second.local.set("captured");
            CapturedContext ctx = ContextPropagation.capture();
            EARLY.set("own");
            // Own values to put back (a thread-local that already holds the captured value is neither
            // set by the restore nor restored at its close).
            FLAKY.local.set("own");
            second.local.set("own");
            RestoredContext restored = ctx.restore();
            IllegalStateException first = new IllegalStateException("second fails first (restored in reverse)");
            AssertionError then = new AssertionError("then the first");
            second.failRestore = first;
            FLAKY.failRestore = then;
            assertSame(first, assertThrows(IllegalStateException.class, restored::close));
            assertEquals(List.of(then), List.of(first.getSuppressed()));
            assertEquals("own", EARLY.get());
        } finally {
            ContextRegistry.getInstance().removeThreadLocalAccessor(second.key().toString());
            second.stopFailing();
        }
    }

    // ------------------------------------------------------------------ a restore that throws

    @Test
    void aStepWhoseRestoreThrowsDecidesItsTaskWithThatFailureAndLeavesTheThreadClean() throws Exception {
        MDC.put("request", "r-2");
        EARLY.set("early");
        FLAKY.local.set("flaky");
        IllegalStateException refused = new IllegalStateException("setValue refused");
        FLAKY.failSet = refused;
        Task<String> t = Task.start(worker, () -> "the body ran");
        MDC.clear();
        EARLY.remove();
        FLAKY.local.remove();

        String after = onWorker(); // runs after the step on the one thread
        assertTrue(t.isDone(), "the task was not decided by its step: " + t);
        assertSame(refused, failureOf(t), t.toString());
        assertEquals("worker-1 mdc=null early=null flaky=null", after, "what the failed restore left on the thread");
        assertEquals(List.of(), uncaught);
    }

    @Test
    void anObservationHandlerThatThrowsWhenTheTasksObservationIsRestoredFailsTheTaskAndLeavesNoScope() throws Exception {
        ObservationRegistry registry = ObservationRegistry.create();
        IllegalStateException refused = new IllegalStateException("onScopeOpened refused");
        AtomicInteger opened = new AtomicInteger();
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public void onScopeOpened(Observation.Context context) {
                if (opened.incrementAndGet() > 1) { // the request's own scope opens; the task's restore of it fails
                    throw refused;
                }
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }
        });
        Observation request = Observation.start("request", registry);
        Task<String> t;
        try (Observation.Scope s = request.openScope()) {
            t = Task.start(worker, () -> "the body ran");
        }
        Observation left = worker.submit(registry::getCurrentObservation).get(30, TimeUnit.SECONDS);
        assertTrue(t.isDone(), "the task was not decided by its step: " + t);
        assertSame(refused, failureOf(t), t.toString());
        assertNull(left, "the failed restore left the request's scope current on the worker");
        request.stop();
    }

    @Test
    void aRestoreThatFailsAtTheEndOfAStepKeepsTheTasksOutcomeAndIsReported() throws Exception {
        MDC.put("request", "r-3");
        FLAKY.local.set("flaky");
        AssertionError unbalanced = new AssertionError("unbalanced scope");
        Task<String> t = Task.start(worker, () -> {
            FLAKY.failRestore = unbalanced;
            return "value";
        });
        MDC.clear();
        FLAKY.local.remove();
        String after = onWorker();
        FLAKY.failRestore = null;
        assertEquals("value", t.join(WAIT));
        assertTrue(after.startsWith("worker-1 mdc=null early=null"), "the step's thread died or kept its context: " + after);
        assertEquals(List.of(unbalanced), uncaught);
    }

    /**
     * Many tasks interleave on two shared threads and a pump-like one; the restore of every third
     * throws, at whichever step it first runs: each task is decided (the refused ones with the
     * refusal), no step sees another task's values, and every thread ends clean.
     */
    @Test
    void interleavedTasksWhoseRestoresSometimesThrowAreEachDecidedAndNoThreadKeepsAnything() throws Exception {
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            FLAKY.refusePrefix = "bad";
            List<Task<String>> tasks = new java.util.ArrayList<>();
            for (int i = 0; i < 3_000; i++) {
                String value = (i % 3 == 0 ? "bad-" : "ok-") + i;
                MDC.put("request", "r" + i);
                FLAKY.local.set(value);
                String expect = "r" + i + "/" + value;
                tasks.add(Task.start(two, ContextRestoreFailureTest::seen)
                        .thenOn(worker, s -> same(s, expect))
                        .thenOn(two, s -> same(s, expect)));
            }
            MDC.clear();
            FLAKY.local.remove();
            for (int i = 0; i < tasks.size(); i++) {
                Task<String> t = tasks.get(i);
                if (i % 3 == 0) {
                    IllegalStateException e = assertThrows(IllegalStateException.class, () -> t.join(WAIT));
                    assertEquals("refused bad-" + i, e.getMessage());
                } else {
                    assertEquals("r" + i + "/ok-" + i, t.join(WAIT));
                }
            }
            FLAKY.refusePrefix = null;
            for (int i = 0; i < 4; i++) {
                assertEquals("null/null", two.submit(ContextRestoreFailureTest::seen).get(30, TimeUnit.SECONDS));
            }
            assertEquals("null/null", worker.submit(ContextRestoreFailureTest::seen).get(30, TimeUnit.SECONDS));
            assertEquals(List.of(), uncaught);
        } finally {
            two.shutdown();
            assertTrue(two.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    private static String seen() {
        return MDC.get("request") + "/" + FLAKY.local.get();
    }

    private static String same(String fromFirstStep, String expected) {
        String here = seen();
        if (!here.equals(expected) || !fromFirstStep.equals(expected)) {
            throw new AssertionError("expected " + expected + " but the steps saw " + fromFirstStep + " then " + here);
        }
        return here;
    }
}
