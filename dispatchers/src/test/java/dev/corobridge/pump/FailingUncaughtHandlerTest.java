package dev.corobridge.pump;

import static dev.corobridge.pump.PumpTestSupport.onPump;
import static dev.corobridge.pump.PumpTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An uncaught-exception handler that throws is reported with both exceptions; the pump goes on. */
class FailingUncaughtHandlerTest {

    /** The pump logs through System.Logger, which is java.util.logging here; kept strongly reachable. */
    private PumpLogCapture log;

    @BeforeEach
    void captureLog() {
        log = new PumpLogCapture(Level.ALL);
    }

    @AfterEach
    void releaseLog() {
        log.close();
    }

    @Test
    void aThrowingHandlerIsReportedWithBothExceptionsAndThePumpKeepsRunning() throws Exception {
        IllegalStateException taskFailure = new IllegalStateException("task failed");
        RuntimeException handlerFailure = new RuntimeException("handler broke");
        MessagePump p = MessagePump.start(PumpConfig.builder("bad-handler").uncaughtExceptionHandler((t, e) -> {
            throw handlerFailure;
        }).build());
        try {
            p.execute(() -> {
                throw taskFailure;
            });
            assertEquals("still alive", onPump(p, () -> "still alive"));
            List<LogRecord> errors = errorsMentioning("bad-handler");
            assertEquals(1, errors.size(), "one report of the failing handler: " + messages());
            LogRecord r = errors.get(0);
            Throwable reported = r.getThrown();
            assertTrue(reported != null, "the report must carry the exceptions");
            assertTrue(chainContains(reported, handlerFailure), "the handler's exception is reported");
            assertTrue(chainContains(reported, taskFailure), "the task's exception is reported");
            assertEquals(0, handlerFailure.getSuppressed().length, "the handler's exception is not mutated");
            assertEquals(0, taskFailure.getSuppressed().length, "the task's exception is not mutated");
            assertEquals(1, p.getMetrics().taskFailures());
        } finally {
            stop(p);
        }
    }

    @Test
    void aHandlerThatThrowsAnErrorDoesNotStopThePumpEither() throws Exception {
        AssertionError handlerFailure = new AssertionError("handler asserted");
        MessagePump p = MessagePump.start(PumpConfig.builder("asserting-handler").uncaughtExceptionHandler((t, e) -> {
            throw handlerFailure;
        }).build());
        try {
            for (int i = 0; i < 3; i++) {
                p.execute(() -> {
                    throw new IllegalArgumentException("again");
                });
            }
            assertSame(Boolean.TRUE, onPump(p, () -> Boolean.TRUE));
            assertEquals(3, errorsMentioning("asserting-handler").size(), messages());
            assertEquals(3, p.getMetrics().taskFailures());
        } finally {
            stop(p);
        }
    }

    private List<LogRecord> errorsMentioning(String pumpName) {
        return log.records().stream()
                .filter(r -> r.getLevel().intValue() >= Level.SEVERE.intValue())
                .filter(r -> String.valueOf(r.getMessage()).contains(pumpName))
                .toList();
    }

    private String messages() {
        return log.records().stream().map(r -> r.getLevel() + " " + r.getMessage()).toList().toString();
    }

    private static boolean chainContains(Throwable reported, Throwable wanted) {
        return reachable(reported, wanted, 0);
    }

    private static boolean reachable(Throwable t, Throwable wanted, int depth) {
        if (t == null || depth > 16) {
            return false;
        }
        if (t == wanted) {
            return true;
        }
        for (Throwable s : t.getSuppressed()) {
            if (reachable(s, wanted, depth + 1)) {
                return true;
            }
        }
        return reachable(t.getCause(), wanted, depth + 1);
    }
}
