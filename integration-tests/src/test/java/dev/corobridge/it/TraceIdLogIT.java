package dev.corobridge.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, item 4, through the real service: a request's trace id (the client's W3C
 * {@code traceparent}) is in the service's log lines of every step of an add-note, on both faces —
 * the handler on the HTTP event loop, the prepare on the pump, the journal's fsync on its ring, the
 * apply back on the pump — in the {@code Trace-Id} response header the page shows, and in no line of
 * another request.
 */
class TraceIdLogIT {

    @TempDir
    static Path data;

    static DemoProcess demo;

    @BeforeAll
    static void start() {
        demo = DemoProcess.start("trace-ids", data, "logging.level.dev.corobridge.demo=DEBUG");
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
        DemoProcess.assertNoLeftovers();
    }

    @Test
    void javaFaceLogsEveryStepOfAnAddNoteWithTheRequestsTraceId() {
        addNoteIsTracedThroughEveryStep("/api/boards");
    }

    @Test
    void kotlinFaceLogsEveryStepOfAnAddNoteWithTheRequestsTraceId() {
        addNoteIsTracedThroughEveryStep("/api/kt/boards");
    }

    private void addNoteIsTracedThroughEveryStep(String face) {
        Http http = demo.http();
        Http.Response board = http.postJson(face, Http.obj("name", "traced"));
        assertThat(board.status()).as(board.body()).isEqualTo(201);
        String id = board.json().get("id").asText();

        String traceId = HexFormat.of().formatHex(randomBytes(16));
        String parent = HexFormat.of().formatHex(randomBytes(8));
        Http.Response added = http.send("POST", face + "/" + id + "/notes", "application/json",
                Http.json(Http.obj("text", "follow me")), Map.of("traceparent", "00-" + traceId + "-" + parent + "-01"));
        assertThat(added.status()).as(added.body()).isEqualTo(201);
        assertThat(added.header("Trace-Id")).as("the trace id the page shows").contains(traceId);

        List<String> lines = awaitLines(traceId, "pump: apply");
        assertThat(lines).as("log lines with trace id %s in %s", traceId, demo.logFile())
                .anySatisfy(l -> assertThat(l).contains("http: POST").containsPattern("\\[[^]]*http[^]]*\\]"))
                .anySatisfy(l -> assertThat(l).contains("pump: prepare").containsPattern("\\[[^]]*pump[^]]*\\]"))
                .anySatisfy(l -> assertThat(l).contains("journal: change durable").containsPattern("\\[[^]]*ring-\\d+\\]"))
                .anySatisfy(l -> assertThat(l).contains("pump: apply").containsPattern("\\[[^]]*pump[^]]*\\]"));
        assertThat(demo.logText().lines().filter(l -> l.contains("pump: prepare")).filter(l -> !l.contains(traceId)).count())
                .as("the board's creation was another request, with another trace id")
                .isPositive();
    }

    /** The log lines holding {@code traceId}, once one of them contains {@code last}. */
    private static List<String> awaitLines(String traceId, String last) {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            List<String> lines = demo.logText().lines().filter(l -> l.contains(traceId)).toList();
            if (lines.stream().anyMatch(l -> l.contains(last)) || System.nanoTime() > deadline) {
                return lines;
            }
            DemoProcess.sleep(50); // the log file is written by the service: poll it, bounded
        }
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        ThreadLocalRandom.current().nextBytes(b);
        b[0] |= 1; // never all zero (an invalid W3C id)
        return b;
    }
}
