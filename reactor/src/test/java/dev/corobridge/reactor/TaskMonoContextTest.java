package dev.corobridge.reactor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Task;
import dev.corobridge.context.CapturedContext;
import io.micrometer.context.ContextRegistry;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;

/**
 * Issue 15, item 2: the Reactor Context and a task's captured context meet at the Mono/Task
 * boundary, both ways, for thread-locals registered with Micrometer's ContextRegistry.
 */
class TaskMonoContextTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final String KEY = "test.reactor.tenant";
    private static final ThreadLocal<String> TENANT = new ThreadLocal<>();

    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> new Thread(r, "worker"));

    @BeforeAll
    static void register() {
        ContextRegistry.getInstance().registerThreadLocalAccessor(KEY, TENANT);
    }

    @AfterAll
    static void unregister() {
        ContextRegistry.getInstance().removeThreadLocalAccessor(KEY);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        TENANT.remove();
        worker.shutdown();
        assertTrue(worker.awaitTermination(30, TimeUnit.SECONDS));
    }

    @Test
    void aPublisherSubscribedFromATaskSeesTheTasksValuesInItsReactorContext() throws Exception {
        Mono<String> readsContext = Mono.deferContextual(c -> Mono.just(c.getOrDefault(KEY, "none")));
        TENANT.set("acme");
        assertEquals("acme", TaskMono.toTask(readsContext).join(WAIT), "from the calling thread");
        // From inside a task on another thread: the task's captured value, not the worker's.
        Task<String> inTask = Task.start(worker, () -> TaskMono.toTask(readsContext).join(WAIT));
        TENANT.remove();
        assertEquals("acme", inTask.join(WAIT));
        assertEquals("none", TaskMono.toTask(readsContext).join(WAIT), "nothing set: nothing in the Context");
    }

    @Test
    void aDeferredTaskCarriesItsSubscribersContextAcrossItsHopsAndLeavesNoThreadLocalBehind() throws Exception {
        AtomicInteger created = new AtomicInteger();
        Mono<String> m = TaskMono.defer(() -> {
            created.incrementAndGet();
            return Task.start(worker, TENANT::get).thenOn(worker, v -> v + "/" + TENANT.get());
        });
        assertEquals(0, created.get(), "nothing is created before subscription");
        assertEquals("acme/acme", m.contextWrite(Context.of(KEY, "acme")).block(WAIT));
        assertEquals("globex/globex", m.contextWrite(Context.of(KEY, "globex")).block(WAIT));
        assertEquals(2, created.get(), "one task per subscription");
        assertNull(TENANT.get(), "the subscribing thread keeps its own (empty) value");
        assertEquals("null", Task.start(worker, () -> String.valueOf(TENANT.get())).join(WAIT), "the worker keeps nothing");
    }

    @Test
    void aDeferredTasksFailureAndCancellationReachTheSubscriber() throws Exception {
        Mono<String> failing = TaskMono.defer(() -> Task.start(worker, () -> { throw new IllegalStateException("no " + TENANT.get()); }));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> failing.contextWrite(Context.of(KEY, "acme")).block(WAIT));
        assertTrue(e.getMessage().contains("no acme"), e.getMessage());

        CountDownLatch never = new CountDownLatch(1);
        Task<?>[] started = new Task<?>[1];
        Mono<Object> blocked = TaskMono.defer(() -> {
            Task<Object> t = Task.start(worker, () -> { never.await(); return null; });
            started[0] = t;
            return t;
        });
        blocked.subscribe().dispose();
        assertThrows(CancellationException.class, () -> started[0].join(WAIT));
        never.countDown();
        assertThrows(NullPointerException.class, () -> TaskMono.defer(null));
        assertThrows(NullPointerException.class, () -> TaskMono.defer(() -> null).block(WAIT));
    }

    @Test
    void aDeferredTaskAnsweredThroughAnExecutorCarriesTheContextAndSignalsThere() throws Exception {
        ExecutorService answers = Executors.newSingleThreadExecutor(r -> new Thread(r, "answers"));
        try {
            Mono<String> m = TaskMono.defer(() -> Task.start(worker, () -> "v:" + TENANT.get()), answers)
                    .map(v -> v + "@" + Thread.currentThread().getName());
            assertEquals("v:acme@answers", m.contextWrite(Context.of(KEY, "acme")).block(WAIT));
            Mono<String> failing = TaskMono.defer(() -> Task.start(worker, () -> { throw new IllegalStateException("no " + TENANT.get()); }), answers);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> failing.contextWrite(Context.of(KEY, "globex")).block(WAIT));
            assertTrue(e.getMessage().contains("no globex"), e.getMessage());
            assertNull(TENANT.get(), "the subscribing thread keeps its own (empty) value");
            assertThrows(NullPointerException.class, () -> TaskMono.defer(() -> Task.completed("x"), null));
            assertThrows(NullPointerException.class, () -> TaskMono.defer(null, answers));
            assertThrows(NullPointerException.class, () -> TaskMono.defer(() -> null, answers).block(WAIT));
        } finally {
            answers.shutdown();
            assertTrue(answers.awaitTermination(30, TimeUnit.SECONDS));
        }
    }

    /** Throws {@code e} whatever its type (as Kotlin code may). */
    @SuppressWarnings("unchecked")
    private static <T, E extends Throwable> T sneaky(Throwable e) throws E {
        throw (E) e;
    }

    @Test
    void aReactorContextBecomesTheThreadsForACallAndIsCapturedForLater() throws Exception {
        TENANT.set("own");
        try {
            assertEquals("acme", ReactorContexts.with(Context.of(KEY, "acme"), TENANT::get));
            assertEquals("own", TENANT.get(), "the thread's own value is back");
            assertThrows(IllegalStateException.class, () -> ReactorContexts.with(Context.of(KEY, "acme"), () -> {
                throw new IllegalStateException(TENANT.get());
            }));
            assertEquals("own", TENANT.get(), "back also after a throw");
            // A checked exception, thrown past the Supplier's signature (Kotlin, or a sneaky throw in
            // Java): the values were left on the thread, for the next request on that thread to see.
            java.io.IOException io = new java.io.IOException("backend unavailable");
            assertSame(io, assertThrows(java.io.IOException.class,
                    () -> ReactorContexts.with(Context.of(KEY, "acme"), () -> TaskMonoContextTest.<String, RuntimeException>sneaky(io))));
            assertEquals("own", TENANT.get(), "back also after a checked exception");
            CapturedContext captured = ReactorContexts.capture(Context.of(KEY, "globex"));
            assertEquals("own", TENANT.get());
            assertEquals("globex", captured.wrap(TENANT::get).call(), "restored later, on any thread");
            assertEquals("globex", Task.start(worker, () -> captured.wrap(TENANT::get).call()).join(WAIT));
            assertEquals("own", ReactorContexts.with(Context.empty(), TENANT::get), "an empty Context changes nothing");
            assertThrows(NullPointerException.class, () -> ReactorContexts.with(null, TENANT::get));
            assertThrows(NullPointerException.class, () -> ReactorContexts.with(Context.empty(), null));
            assertThrows(NullPointerException.class, () -> ReactorContexts.capture(null));
        } finally {
            TENANT.remove();
        }
    }
}
