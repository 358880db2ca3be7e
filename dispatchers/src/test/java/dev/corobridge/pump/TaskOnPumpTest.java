package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.ContextShutdownException;
import dev.corobridge.bridge.Task;
import java.time.Duration;
import java.util.Collections;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Tasks and the pump together: Java calling Kotlin, hops, and the never-block-the-pump rule. */
class TaskOnPumpTest {

    private final MessagePump ui = MessagePump.start("task-ui");

    @AfterEach
    void tearDown() throws Exception {
        stop(ui);
    }

    @Test
    void javaCallsAKotlinSuspendFunctionThatHopsPumpBackgroundPump() throws Exception {
        UserService users = new UserService(ui);
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        Task<String> user = Task.startSuspend(ui, cont -> users.load("7", seen, cont));
        Task<String> shown = user.thenOn(ui, name -> {
            ui.checkAccess();
            return name + " shown on " + Thread.currentThread().getName().split(" ")[0];
        });
        assertEquals("USER-7 shown on task-ui", shown.join(Duration.ofSeconds(30)));
        assertEquals(3, seen.size(), seen.toString());
        assertTrue(seen.get(0).startsWith("start@task-ui"), seen.toString());
        assertTrue(seen.get(1).startsWith("io@DefaultDispatcher-worker"), seen.toString());
        assertTrue(seen.get(2).startsWith("apply@task-ui"), seen.toString());
    }

    @Test
    void awaitOnThePumpThreadThrowsNamingTheFix() throws Exception {
        Task<String> pending = Task.from(new CompletableFuture<>());
        IllegalStateException e = onPump(ui, () -> {
            try {
                pending.join();
                return null;
            } catch (IllegalStateException ex) {
                return ex;
            }
        });
        assertTrue(e != null, "await() on the pump must throw");
        String m = e.getMessage();
        assertTrue(m.contains("'task-ui'") && m.contains("thenOn") && m.contains("virtual"), m);
        // A done task is a fast path that never blocks, so it is fine on the pump.
        assertEquals("x", onPump(ui, () -> Task.completed("x").join()));
    }

    @Test
    void virtualThreadBodiesHopWithCallAwait() throws Exception {
        Affine<List<String>> board = Affine.of(ui, new ArrayList<>());
        Task<Integer> flow = Task.startVirtual(() -> {
            String loaded = Task.start(Dispatchers.getIO(), () -> "note").join();  // background
            Task.start(ui, () -> board.get().add(loaded)).join();                          // hop to the pump
            return Task.start(ui, () -> board.get().size()).join();
        });
        assertEquals(1, flow.join(Duration.ofSeconds(30)));
        assertTrue(flow.getTrace().getHops().size() >= 1);
    }

    @Test
    void aTaskForATerminatedPumpIsAShutdownCancellation() throws Exception {
        MessagePump dead = MessagePump.start("dead");
        stop(dead);
        Task<String> t = Task.start(dead, () -> "never");
        assertInstanceOf(ContextShutdownException.class, t.outcomeOrNull().errorOrNull());
        Task<String> viaDispatcher = Task.start(dead.getDispatcher(), () -> "never");
        assertInstanceOf(ContextShutdownException.class, viaDispatcher.outcomeOrNull().errorOrNull());
    }
}
