package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.WAIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
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

    /** The pump logs through System.Logger, which is java.util.logging here; kept strongly reachable. */
    private final Logger pumpLog = Logger.getLogger(MessagePump.class.getName());
    private final List<LogRecord> logged = Collections.synchronizedList(new ArrayList<>());
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord r) {
            if (r.getLevel().intValue() >= Level.INFO.intValue()) {
                logged.add(r);
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureLog() {
        pumpLog.addHandler(capture);
    }

    @AfterEach
    void releaseLog() {
        pumpLog.removeHandler(capture);
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
        CountDownLatch inTask = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        p.execute(() -> {
            inTask.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(inTask.await(WAIT.toSeconds(), TimeUnit.SECONDS));
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
        synchronized (logged) {
            return logged.stream().filter(r -> String.valueOf(r.getMessage()).contains("'" + pump + "'"))
                    .map(r -> r.getLevel() + " " + r.getMessage()).toList();
        }
    }
}
