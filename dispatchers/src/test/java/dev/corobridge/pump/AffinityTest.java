package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** isCurrentThread, checkAccess and Affine: pump-owned state fails loudly off the pump. */
class AffinityTest {

    @Test
    void checkAccessNamesBothThreadsAndTheFix() throws Exception {
        MessagePump pump = MessagePump.start("ui-affinity");
        try {
            assertFalse(pump.isCurrentThread());
            PumpAffinityException e = assertThrows(PumpAffinityException.class, pump::checkAccess);
            String m = e.getMessage();
            assertTrue(m.contains("'" + Thread.currentThread().getName() + "'"), m);
            assertTrue(m.contains("'ui-affinity'"), m);
            assertTrue(m.contains("pump.execute"), m);
            assertEquals("ui-affinity", e.pumpName());
            assertTrue(onPump(pump, () -> {
                pump.checkAccess();
                return pump.isCurrentThread();
            }));
        } finally {
            stop(pump);
        }
    }

    @Test
    void aPumpWithoutAThreadSaysSo() {
        MessagePump pump = MessagePump.create("not-started");
        PumpAffinityException e = assertThrows(PumpAffinityException.class, pump::checkAccess);
        assertTrue(e.getMessage().contains("not started"), e.getMessage());
        pump.shutdownNow();
    }

    @Test
    void affineStateIsOnlyTouchedOnThePump() throws Exception {
        MessagePump pump = MessagePump.start("owner");
        try {
            Affine<List<String>> board = Affine.of(pump, new ArrayList<>());
            assertThrows(PumpAffinityException.class, board::get);
            assertThrows(PumpAffinityException.class, () -> board.set(List.of()));
            assertThrows(PumpAffinityException.class, () -> board.update(l -> l));
            assertThrows(PumpAffinityException.class, () -> board.read(List::size));
            List<String> copy = onPump(pump, () -> {
                board.get().add("note");
                board.update(l -> {
                    l.add("second");
                    return l;
                });
                return board.read(List::copyOf);
            });
            assertEquals(List.of("note", "second"), copy);
            assertEquals(pump, board.getPump());
        } finally {
            stop(pump);
        }
    }

    @Test
    void manualPumpBelongsToItsCreator() throws Exception {
        ManualPump pump = ManualPump.create("manual-owner");
        pump.checkAccess();
        Affine<Integer> v = Affine.of(pump, 1);
        assertEquals(1, v.get());
        Thread other = new Thread(() -> assertThrows(PumpAffinityException.class, v::get));
        other.start();
        other.join();
        assertThrows(IllegalArgumentException.class, () -> pump.advanceTimeBy(java.time.Duration.ofMillis(-1)));
    }
}
