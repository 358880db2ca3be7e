package dev.corobridge.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import io.micrometer.context.ContextRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * What a Java task carries (issue 15, item 2): the MDC and the ContextRegistry thread-locals of
 * the thread that starts it are there in every step — a single-thread "pump", Dispatchers.Default,
 * a virtual thread — and gone afterwards, so the next unrelated task on the same thread sees
 * nothing; for every exit (value, failure, cancellation, shutdown).
 */
class TaskContextPropagationTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** A thread-local registered with Micrometer's ContextRegistry, as Reactor or Spring Security do. */
    static final ThreadLocal<String> TENANT = new ThreadLocal<>();
    private static final String TENANT_KEY = "test.tenant";

    private final ExecutorService pump = Executors.newSingleThreadExecutor(r -> new Thread(r, "pump-like"));

    @BeforeAll
    static void register() {
        ContextRegistry.getInstance().registerThreadLocalAccessor(TENANT_KEY, TENANT);
    }

    @AfterAll
    static void unregister() {
        ContextRegistry.getInstance().removeThreadLocalAccessor(TENANT_KEY);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        MDC.clear();
        TENANT.remove();
        ContextPropagation.setEnabled(true);
        pump.shutdown();
        assertTrue(pump.awaitTermination(30, TimeUnit.SECONDS));
    }

    /** What a step saw: the request MDC key, the whole MDC, the tenant. */
    record Seen(String request, Map<String, String> mdc, String tenant, String thread) {
        static Seen now() {
            Map<String, String> m = MDC.getCopyOfContextMap();
            return new Seen(MDC.get("request"), m == null ? Map.of() : m, TENANT.get(), Thread.currentThread().getName());
        }
    }

    private Seen onPump() throws Exception {
        return Task.start(pump, Seen::now).join(WAIT);
    }

    /**
     * Whoever the task's completion resumes on the thread of its last step (a callback, a coroutine
     * on a dispatcher that resumes inline, the next stage of another chain) is not the task's: it
     * sees the thread's own values, not the finished task's. The task was decided while its step's
     * context was still on the thread, so a request without values awaiting another request's task
     * ran as that request (its logs, its trace, and the tasks it started then carried them).
     */
    @Test
    void whatTheCompletionResumesOnTheStepsThreadDoesNotSeeTheTasksValues() throws Exception {
        assertCallbackSeesNoValues(first -> first);
    }

    /**
     * Starts a task with request A's values on the pump, held in its step until released, and
     * {@code chain} on it; registers a callback on the chain's task from this thread (which has no
     * values), releases the step, and checks that the callback, run inline on the pump's thread when
     * the task was decided, saw none of request A's values, and that nothing was left there.
     * Returns the chain's task.
     */
    private Task<?> assertCallbackSeesNoValues(java.util.function.Function<Task<String>, Task<?>> chain) throws Exception {
        MDC.put("request", "r-A");
        TENANT.set("tenant-A");
        CountDownLatch go = new CountDownLatch(1);
        Task<?> task = chain.apply(Task.start(pump, () -> {
            go.await();
            return "a";
        }));
        MDC.clear();
        TENANT.remove();
        java.util.concurrent.atomic.AtomicReference<Seen> resumed = new java.util.concurrent.atomic.AtomicReference<>();
        CountDownLatch seen = new CountDownLatch(1);
        task.onComplete(o -> {
            resumed.set(Seen.now());
            seen.countDown();
        });
        go.countDown();
        assertTrue(seen.await(30, TimeUnit.SECONDS));
        assertEquals("pump-like", resumed.get().thread(), "resumed inline, on the step's thread");
        assertNull(resumed.get().request(), "the finished task's MDC: " + resumed.get());
        assertNull(resumed.get().tenant(), "the finished task's registered value: " + resumed.get());
        assertEquals(new Seen(null, Map.of(), null, "pump-like"), onPump(), "nothing left for the next task");
        return task;
    }

    /**
     * The same for a {@code thenComposeOn} stage whose function returns an awaitable that is
     * decided already (a cached result, a completed promise): the stage's task is decided by that
     * awaitable's callback, which ran at once, inside the stage's step, with the chain's values on
     * the thread.
     */
    @Test
    void whatAComposedStageResumesWhenItsInnerIsDecidedAlreadyDoesNotSeeTheChainsValues() throws Exception {
        Task<?> composed = assertCallbackSeesNoValues(first -> first.thenComposeOn(pump, v -> Task.completed(v + "-composed")));
        assertEquals("a-composed", composed.join(WAIT));
    }

    @Test
    void aStartedTaskSeesTheStartersMdcAndRegisteredValuesOnThePumpAndNothingLeaksToTheNextTask() throws Exception {
        MDC.put("request", "r-1");
        MDC.put("user", "ada");
        TENANT.set("acme");
        Task<Seen> t = Task.start(pump, Seen::now);
        MDC.clear();
        TENANT.remove();

        Seen seen = t.join(WAIT);
        assertEquals("r-1", seen.request());
        assertEquals(Map.of("request", "r-1", "user", "ada"), seen.mdc());
        assertEquals("acme", seen.tenant());
        assertEquals("pump-like", seen.thread());

        Seen next = onPump(); // an unrelated task, started with nothing, on the same thread
        assertEquals(Map.of(), next.mdc());
        assertNull(next.tenant());
    }

    @Test
    void everyStageOfAChainCarriesTheFirstTasksValuesAcrossPumpDefaultAndAVirtualThread() throws Exception {
        MDC.put("request", "r-2");
        TENANT.set("acme");
        List<Seen> seen = new ArrayList<>();
        Task<List<Seen>> chain = Task.start(pump, () -> { seen.add(Seen.now()); return 0; })
                .thenOn(Dispatchers.getDefault(), x -> { seen.add(Seen.now()); return x; })
                .thenComposeOn(pump, x -> Task.startVirtual(() -> { seen.add(Seen.now()); return x; }))
                .thenOn(pump, x -> { seen.add(Seen.now()); return List.copyOf(seen); });
        MDC.clear();
        TENANT.remove();

        List<Seen> all = chain.join(WAIT);
        assertEquals(4, all.size());
        for (Seen s : all) {
            assertEquals("r-2", s.request(), s.toString());
            assertEquals("acme", s.tenant(), s.toString());
        }
        assertTrue(all.get(1).thread().startsWith("DefaultDispatcher-worker"), all.get(1).thread());
        assertTrue(all.get(2).thread().isEmpty() || all.get(2).thread().startsWith("corobridge-virtual"), all.get(2).thread());
        assertEquals(Map.of(), onPump().mdc());
    }

    @Test
    void stagesBuiltOnAnotherThreadStillCarryTheFirstTasksValues() throws Exception {
        MDC.put("request", "first");
        Promise<Integer> gate = new Promise<>();
        Task<Integer> first = Task.start(pump, () -> gate.join());
        MDC.put("request", "builder"); // whoever builds the chain later does not change what it carries
        Task<String> second = first.thenOn(pump, x -> MDC.get("request"));
        gate.complete(1);
        assertEquals("first", second.join(WAIT));
    }

    @Test
    void theWorkersOwnValuesAreHiddenDuringTheStepAndBackAfterIt() throws Exception {
        Task.start(pump, () -> { MDC.put("worker", "own"); TENANT.set("worker-tenant"); return 0; }).join(WAIT);
        MDC.put("request", "r-3");
        Seen during = onPump();
        assertEquals(Map.of("request", "r-3"), during.mdc());
        assertNull(during.tenant()); // the starter had no tenant: the step sees none
        MDC.clear();
        Seen after = Task.start(pump, Seen::now).join(WAIT); // nothing captured: the thread is left as it is
        assertEquals(Map.of("worker", "own"), after.mdc());
        assertEquals("worker-tenant", after.tenant());
    }

    @Test
    void aFailingOrCancelledStepLeavesTheThreadClean() throws Exception {
        MDC.put("request", "r-4");
        Task<Object> failing = Task.start(pump, () -> { throw new IllegalStateException("boom"); });
        ExecutionException e = assertThrows(ExecutionException.class, () -> failing.toCompletableFuture().get(30, TimeUnit.SECONDS));
        assertEquals("boom", e.getCause().getMessage());

        Promise<Integer> gate = new Promise<>();
        CountDownLatch running = new CountDownLatch(1);
        Task<Integer> blocked = Task.start(pump, () -> { running.countDown(); return gate.join(); });
        assertTrue(running.await(30, TimeUnit.SECONDS));
        Task<String> never = blocked.thenOn(pump, x -> MDC.get("request"));
        never.cancel(); // cancelled before it runs: it never installs anything
        gate.complete(1);
        assertThrows(CancellationException.class, () -> never.join(WAIT));
        assertEquals(1, blocked.join(WAIT));

        MDC.clear();
        assertEquals(Map.of(), onPump().mdc());
    }

    @Test
    void aShutDownContextCancelsTheTaskAndInstallsNothing() throws Exception {
        MDC.put("request", "r-5");
        ExecutorService gone = Executors.newSingleThreadExecutor();
        gone.shutdown();
        Task<String> t = Task.start(gone, () -> MDC.get("request"));
        assertThrows(CancellationException.class, () -> t.join(WAIT));
        assertEquals("r-5", MDC.get("request")); // the caller's own MDC is untouched
    }

    @Test
    void withPropagationOffAStepSeesTheWorkersValuesOnly() throws Exception {
        ContextPropagation.setEnabled(false);
        MDC.put("request", "r-6");
        TENANT.set("acme");
        Seen seen = onPump();
        assertNull(seen.request());
        assertNull(seen.tenant());
        assertTrue(ContextPropagation.capture().isEmpty());
    }

    @Test
    void tasksOfFuturesAndValuesCarryTheCreatorsValuesIntoTheirStages() throws Exception {
        MDC.put("request", "r-7");
        Task<String> fromValue = Task.completed(1).thenOn(pump, x -> MDC.get("request"));
        Task<String> fromFuture = Task.from(new java.util.concurrent.CompletableFuture<Integer>().completeAsync(() -> 2))
                .thenOn(pump, x -> MDC.get("request"));
        MDC.clear();
        assertEquals("r-7", fromValue.join(WAIT));
        assertEquals("r-7", fromFuture.join(WAIT));
    }

    @Test
    void capturedContextRestoresAndPutsBackForCodeThatIsNotATask() throws Exception {
        MDC.put("request", "r-8");
        TENANT.set("acme");
        CapturedContext ctx = ContextPropagation.capture();
        assertFalse(ctx.isEmpty());
        MDC.put("request", "other");
        TENANT.set("other-tenant");
        try (RestoredContext r = ctx.restore()) {
            assertEquals("r-8", MDC.get("request"));
            assertEquals("acme", TENANT.get());
            r.close();
            r.close(); // twice: nothing more
        }
        assertEquals("other", MDC.get("request"));
        assertEquals("other-tenant", TENANT.get());
        String inWrapped = pump.submit(ctx.wrap(() -> MDC.get("request") + "/" + TENANT.get())).get(30, TimeUnit.SECONDS);
        assertEquals("r-8/acme", inWrapped);
        assertEquals(Map.of(), onPumpWithoutTask());
    }

    private Map<String, String> onPumpWithoutTask() throws Exception {
        return pump.submit(() -> {
            Map<String, String> m = MDC.getCopyOfContextMap();
            return m == null ? Map.<String, String>of() : m;
        }).get(30, TimeUnit.SECONDS);
    }

    /**
     * Many tasks with different values interleave on two shared threads: each step sees its own
     * task's values, never another's, and the threads end clean.
     */
    @Test
    void interleavedTasksOnSharedThreadsNeverSeeEachOthersValues() throws Exception {
        ExecutorService two = Executors.newFixedThreadPool(2);
        try {
            List<Task<String>> tasks = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                MDC.put("request", "r" + i);
                TENANT.set("t" + i);
                String expect = "r" + i + "/t" + i;
                tasks.add(Task.start(two, () -> MDC.get("request") + "/" + TENANT.get())
                        .thenOn(pump, s -> check(s, expect))
                        .thenOn(two, s -> check(s, expect)));
            }
            MDC.clear();
            TENANT.remove();
            for (int i = 0; i < tasks.size(); i++) {
                assertEquals("r" + i + "/t" + i, tasks.get(i).join(WAIT));
            }
            for (int i = 0; i < 4; i++) {
                assertEquals("null/null", two.submit(() -> MDC.get("request") + "/" + TENANT.get()).get(30, TimeUnit.SECONDS));
            }
        } finally {
            two.shutdown();
        }
    }

    private static String check(String fromFirstStep, String expected) {
        String here = MDC.get("request") + "/" + TENANT.get();
        if (!here.equals(expected) || !fromFirstStep.equals(expected)) {
            throw new AssertionError("expected " + expected + " but the steps saw " + fromFirstStep + " then " + here);
        }
        return here;
    }
}
