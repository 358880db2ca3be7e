package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The HTTP scenarios against the packaged jar started as a separate JVM (or, with
 * {@code -Dit.base-url=...}, against a service that is already running), then a restart on the
 * same data directory: every board, note, id and revision survives.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProcessScenariosIT {

    @TempDir
    static Path data;

    static DemoProcess demo;
    static Http http;
    static Scenarios scenarios;

    @BeforeAll
    static void start() {
        String external = System.getProperty("it.base-url", "");
        if (external.isBlank()) {
            // A short body timeout: the sweep's body that stops short is answered 408 after it.
            demo = DemoProcess.start("scenarios", data, "demo.http.body-timeout=2s");
            http = demo.http();
        } else {
            http = new Http(external);
        }
        scenarios = new Scenarios(http);
    }

    @AfterAll
    static void stop() {
        if (demo != null) {
            demo.close();
        }
        DemoProcess.assertNoLeftovers();
    }

    @Test @Order(1)
    void ping() {
        scenarios.ping();
    }

    @Test @Order(2)
    void fullFlowJavaFace() {
        scenarios.fullFlow("/api");
    }

    @Test @Order(3)
    void fullFlowKotlinFace() {
        scenarios.fullFlow("/api/kt");
    }

    @Test @Order(4)
    void bothFacesChangeTheSameBoards() {
        scenarios.facesShareBoards();
    }

    @Test @Order(5)
    void sseSubscriberSeesEveryChangeInOrder() {
        scenarios.sseOrder();
    }

    @Test @Order(6)
    void hopTracesShowThePumpForModelStepsAndARingForJournalSteps() {
        scenarios.hopTraces();
    }

    @Test @Order(7)
    void liveMetricsReportTheTransport() {
        JsonNode live = scenarios.liveReport();
        System.out.println("[scenarios] live: " + live);
        assertThat(live.path("journal").path("changes").asLong()).isPositive();
        assertThat(live.path("journal").path("fsyncs").asLong()).isPositive();
    }

    @Test @Order(8)
    void badInputSweep() {
        int logFrom = demo != null ? demo.logText().length() : 0;
        BadInput.Result r = new BadInput(http).sweep();
        System.out.println("[scenarios] bad input sweep: " + r.cases() + " cases, " + r.failures().size() + " failures");
        r.failures().forEach(f -> System.out.println("[scenarios]   " + f));
        assertThat(r.cases()).isGreaterThanOrEqualTo(200);
        r.assertAllPassed();
        if (demo != null) {
            // Client mistakes are not the service's faults: nothing of the sweep is logged as an error, and
            // no warning but at most the one rate-limited summary of client faults (they are DEBUG lines).
            String log = demo.logText().substring(logFrom);
            assertThat(log.lines().filter(l -> l.contains(" ERROR ") || l.startsWith("\tat ")))
                    .as("ERROR lines or stack frames in %s during the sweep", demo.logFile()).isEmpty();
            assertThat(log.lines().filter(l -> l.contains(" WARN ") && !l.contains("ClientFaultSummary")))
                    .as("WARN lines in %s during the sweep", demo.logFile()).isEmpty();
            assertThat(log.lines().filter(l -> l.contains(" WARN "))).as("WARN lines in %s during the sweep", demo.logFile())
                    .hasSizeLessThanOrEqualTo(1);
        }
    }

    @Test @Order(9)
    void everythingSurvivesARestart() {
        assumeTrue(demo != null, "the service runs elsewhere (it.base-url)");
        JsonNode before = scenarios.snapshotAll();
        demo.close();
        assertThat(demo.waitFor(Duration.ofSeconds(1))).isPresent();
        demo = DemoProcess.start("scenarios-restarted", data);
        http = demo.http();
        scenarios = new Scenarios(http);
        assertThat(scenarios.snapshotAll()).isEqualTo(before);
        // New ids continue after the old ones.
        String id = scenarios.createBoard("/api", "after restart").path("id").asText();
        long maxBefore = 0;
        for (JsonNode b : before) {
            maxBefore = Math.max(maxBefore, Long.parseLong(b.path("id").asText().substring(1)));
        }
        assertThat(Long.parseLong(id.substring(1))).isGreaterThan(maxBefore);
    }
}
