package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The request's trace id (from the client's {@code traceparent}) is in the DEBUG line of every step
 * of an add-note, on both faces, each on the thread the step ran on: the handler on the HTTP event
 * loop, the prepare on the pump, the journal's {@code fdatasync} on its ring, the apply back on the
 * pump; and no prepare of another request carries it. (In-process twin of the integration tests'
 * TraceIdLogIT, which runs the demo as a process.) The demo's loggers are at DEBUG for the test only.
 */
@ExtendWith(OutputCaptureExtension.class)
class TraceIdLogTest extends LiveServiceTestBase {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String DEMO = "dev.corobridge.demo";
    /**
     * The pump's thread in a log line. Under {@code -ea} kotlinx names a thread that runs a coroutine
     * {@code "<thread> @coroutine#n"}, which the log pattern cuts to its last 15 characters:
     * {@code [mp @coroutine#2]} is the pump running a coroutine.
     */
    private static final String PUMP = "\\[(corobridge-pump|mp @coroutine#\\d+)\\]";

    @Test
    void everyStepOfAnAddNoteLogsTheRequestsTraceIdOnItsThread(CapturedOutput output) throws Exception {
        LoggingSystem logging = LoggingSystem.get(getClass().getClassLoader());
        logging.setLogLevel(DEMO, LogLevel.DEBUG);
        try {
            for (String face : FACES) {
                String b = createBoard(face, "traced");
                String traceId = hex(16);
                RawHttp.Response added = exchange(request("POST", face + "/boards/" + b + "/notes",
                        List.of("Content-Type: application/json", "Content-Length: 20",
                                "traceparent: 00-" + traceId + "-" + hex(8) + "-01"), "{\"text\":\"follow me\"}".getBytes()));
                assertThat(added.status()).as(added.body()).isEqualTo(201);
                List<String> lines = awaitLines(output, traceId, "pump: apply");
                assertThat(lines).as("%s: lines with trace id %s", face, traceId)
                        .anySatisfy(l -> assertThat(l).contains("http: POST").doesNotContain("[corobridge-pump]", "robridge-ring-"))
                        .anySatisfy(l -> assertThat(l).contains("pump: prepare").containsPattern(PUMP))
                        .anySatisfy(l -> assertThat(l).contains("journal: change durable").containsPattern("\\[[^]]*ring-\\d+\\]"))
                        .anySatisfy(l -> assertThat(l).contains("pump: apply").containsPattern(PUMP));
                assertThat(output.getAll().lines().filter(l -> l.contains("pump: prepare")).filter(l -> !l.contains(traceId)))
                        .as("the board's creation was another request, with another trace id").isNotEmpty();
            }
        } finally {
            logging.setLogLevel(DEMO, null);
        }
    }

    /** The captured lines holding {@code traceId}, once one of them contains {@code last}. */
    private static List<String> awaitLines(CapturedOutput output, String traceId, String last) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            List<String> lines = output.getAll().lines().filter(l -> l.contains(traceId)).toList();
            if (lines.stream().anyMatch(l -> l.contains(last))) {
                return lines;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no line with " + traceId + " and '" + last + "' within " + WAIT + ":\n"
                + String.join("\n", output.getAll().lines().filter(l -> l.contains(traceId)).toList()));
    }

    private static String hex(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
