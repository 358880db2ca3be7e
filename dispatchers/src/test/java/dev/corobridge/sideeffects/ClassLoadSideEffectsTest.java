package dev.corobridge.sideeffects;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Task;
import dev.corobridge.ring.RingPool;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Loading corobridge's classes has no side effect: in a fresh JVM, initialising every class of
 * bridge and dispatchers sets no system property and starts no thread. (Starting a pool or a pump
 * may; loading a class must not, e.g. because a framework scans the class path.)
 */
class ClassLoadSideEffectsTest {

    @Test
    void initialisingEveryClassOfBridgeAndDispatchersSetsNoPropertyAndStartsNoThread() throws Exception {
        ChildJvm.Result r = ChildJvm.run(ClassLoadProbe.class, List.of(),
                List.of(ChildJvm.locationOf(Task.class), ChildJvm.locationOf(RingPool.class)));
        assertEquals(0, r.exitCode(), r.err());
        assertTrue(r.out().getFirst().startsWith("loaded "), r.out() + "\n" + r.err());
        int loaded = Integer.parseInt(r.out().getFirst().substring("loaded ".length()));
        assertTrue(loaded > 100, "too few classes loaded: " + r.out());
        List<String> sideEffects = r.out().stream()
                .filter(l -> l.startsWith("property ") || l.startsWith("thread ")).toList();
        assertEquals(List.of(), sideEffects, "full report: " + r.out());
    }
}
