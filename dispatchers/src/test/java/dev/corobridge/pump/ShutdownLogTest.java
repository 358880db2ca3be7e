package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static dev.corobridge.pump.PumpTestSupport.blockWithATask;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a pump's termination logs: a WARNING when it abandoned something, and nothing above DEBUG
 * when it abandoned nothing, also after {@code shutdownNow()}. Every {@code shutdownNow()} of an
 * idle pump logged "terminated forcibly … abandoned: 0 coroutines, 0 tasks, 0 delayed tasks" as a
 * WARNING, which told an operator of a loss that was not there.
 */
class ShutdownLogTest {

    private PumpLogCapture log;

    @BeforeEach
    void captureLog() {
        log = new PumpLogCapture(Level.INFO);
    }

    @AfterEach
    void releaseLog() {
        log.close();
    }

    @Test
    void aForcedShutdownThatAbandonsNothingLogsNoWarning() throws Exception {
        MessagePump p = MessagePump.start("idle-forced");
        ShutdownReport r = p.shutdownNow().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertFalse(r.graceful(), r.toString());
        assertTrue(r.abandonedTasks().isEmpty() && r.abandonedCoroutines().isEmpty() && r.abandonedTimers() == 0, r.toString());
        assertEquals(List.of(), messagesOf("idle-forced"));
    }

    @Test
    void aShutdownThatAbandonsWorkWarnsWithWhatItAbandoned() throws Exception {
        MessagePump p = MessagePump.start("busy-forced");
        CountDownLatch release = blockWithATask(p);
        p.execute(() -> { });
        var f = p.shutdownNow();
        release.countDown();
        ShutdownReport r = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertEquals(1, r.abandonedTasks().size(), r.toString());
        List<String> warnings = messagesOf("busy-forced");
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("1 tasks"), warnings.get(0));
    }

    private List<String> messagesOf(String pump) {
        return log.records().stream().filter(r -> String.valueOf(r.getMessage()).contains("'" + pump + "'"))
                .map(r -> r.getLevel() + " " + r.getMessage()).toList();
    }
}
