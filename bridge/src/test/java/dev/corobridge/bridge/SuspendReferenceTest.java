package dev.corobridge.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.ExecutorCoroutineDispatcher;
import kotlinx.coroutines.ExecutorsKt;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Kotlin suspend function passed from Java as a method reference, {@code obj::suspendFun}, with no
 * type witness ({@code Task.<String>startSuspend(...)}) and no lambda around it: the compilation of
 * this class is half of the test. {@code startSuspend} and {@code TaskScope.forkSuspend} accept the
 * same contexts (an {@link ExecutionContext} or a dispatcher).
 */
class SuspendReferenceTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final ExecutorService pool = Executors.newSingleThreadExecutor(r -> new Thread(r, "ctx-home"));
    private final ExecutorCoroutineDispatcher dispatcher = ExecutorsKt.from(pool);
    private final ExecutionContext home = new ExecutionContext() {
        @Override
        public String getName() {
            return "home";
        }

        @Override
        public CoroutineDispatcher getDispatcher() {
            return dispatcher;
        }

        @Override
        public void execute(Runnable command) {
            pool.execute(command);
        }
    };
    private final SuspendService service = new SuspendService("ada");

    @AfterEach
    void tearDown() {
        dispatcher.close();
    }

    @Test
    void fromSuspendTakesAMethodReferenceOnAContextOrADispatcher() throws Exception {
        Task<String> user = Task.startSuspend(home, service::currentUser);
        Task<List<String>> roles = Task.startSuspend(dispatcher, service::roles);
        String who = user.join(WAIT);
        assertTrue(who.startsWith("ada@ctx-home"), who);
        assertEquals(List.of("reader", "writer"), roles.join(WAIT));

        Task<String> refused = Task.startSuspend(home, service::refuse);
        assertEquals("refused ada", assertThrows(IllegalStateException.class, () -> refused.join(WAIT)).getMessage());
    }

    @Test
    void forkSuspendAcceptsWhatFromSuspendAccepts() throws Exception {
        try (TaskScope scope = TaskScope.open("refs")) {
            Task<String> user = scope.forkSuspend(home, service::currentUser);
            Task<List<String>> roles = scope.forkSuspend(dispatcher, service::roles);
            scope.joinAll();
            assertTrue(user.resultNow().startsWith("ada@ctx-home"), user.resultNow());
            assertEquals(List.of("reader", "writer"), roles.resultNow());
        }
    }

    @Test
    void aFailingForkSuspendCancelsItsSiblingsAndIsRethrownByJoinAll() throws Exception {
        try (TaskScope scope = TaskScope.open("refs")) {
            Task<String> refused = scope.forkSuspend(home, service::refuse);
            Task<String> sibling = scope.forkSuspend(dispatcher, service::hang);
            assertEquals("refused ada", assertThrows(IllegalStateException.class, scope::joinAll).getMessage());
            assertThrows(IllegalStateException.class, () -> refused.join(WAIT));
            assertThrows(CancellationException.class, () -> sibling.join(WAIT));
            assertTrue(sibling.outcomeOrNull().isCancelled());
        }
    }
}
