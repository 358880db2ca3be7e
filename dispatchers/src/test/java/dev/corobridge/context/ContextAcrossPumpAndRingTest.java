package dev.corobridge.context;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Hop;
import dev.corobridge.bridge.HopNote;
import dev.corobridge.bridge.Task;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.Ring;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * Issue 15, item 4 (Java): an MDC value set before {@code Task.start} is there on a real pump, a
 * ring of a real ring pool, Dispatchers.Default and a virtual thread, and absent from the pump's
 * and the ring's next unrelated task.
 */
class ContextAcrossPumpAndRingTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    private final MessagePump pump = MessagePump.start("ctx-ui");
    private final RingPool rings = RingPool.start(RingPoolConfig.builder().name("ctx-rings").rings(1)
            .shutdownGracePeriod(Duration.ofSeconds(5)).build());
    private final Ring ring = rings.next();

    @AfterEach
    void tearDown() throws Exception {
        MDC.clear();
        pump.shutdown().get(30, TimeUnit.SECONDS);
        rings.shutdown().get(60, TimeUnit.SECONDS);
    }

    private static String where() {
        return MDC.get("request") + "@" + Thread.currentThread().getName();
    }

    @Test
    void theStartersMdcIsOnThePumpARingDefaultAndAVirtualThreadAndNowhereAfterwards() throws Exception {
        MDC.put("request", "r-42");
        List<String> seen = new ArrayList<>();
        Task<List<String>> chain = Task.start(pump, () -> { seen.add(where()); return 1; })
                .thenOn(HopNote.on(ring, "journal"), x -> { seen.add(where()); return x; })
                .thenOn(Dispatchers.getDefault(), x -> { seen.add(where()); return x; })
                .thenComposeOn(pump, x -> Task.startVirtual(() -> { seen.add(where()); return x; }))
                .thenOn(pump, x -> { seen.add(where()); return List.copyOf(seen); });
        MDC.clear();

        List<String> all = chain.join(WAIT);
        assertEquals(5, all.size(), all.toString());
        for (String s : all) {
            assertTrue(s.startsWith("r-42@"), all.toString());
        }
        assertTrue(all.get(0).startsWith("r-42@ctx-ui"), all.get(0));
        assertTrue(all.get(1).contains("ctx-rings"), all.get(1));
        assertTrue(all.get(2).contains("DefaultDispatcher-worker"), all.get(2));
        assertEquals("journal", chain.getTrace().getHops().stream().filter(h -> h.context().contains("ctx-rings"))
                .map(Hop::note).findFirst().orElse("no ring hop in " + chain.getTrace()));

        // The next, unrelated tasks on the same pump and ring threads see nothing.
        assertNull(Task.start(pump, () -> MDC.get("request")).join(WAIT));
        assertNull(Task.start(ring, () -> MDC.get("request")).join(WAIT));
        assertNull(Task.startVirtual(() -> MDC.get("request")).join(WAIT));
    }

    @Test
    void aRingOperationsStagesCarryTheContextOfTheTaskThatStartedThem() throws Exception {
        MDC.put("request", "r-43");
        Task<String> t = Task.start(pump, () -> 1)
                .thenComposeOn(ring, x -> Task.start(ring, () -> where()))
                .thenOn(pump, s -> s + "|" + where());
        MDC.clear();
        String both = t.join(WAIT);
        assertTrue(both.matches("r-43@.*ctx-rings.*\\|r-43@ctx-ui.*"), both);
    }
}
