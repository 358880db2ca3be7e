package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.corobridge.demo.web.RawHttp;

/**
 * A burst of client faults (requests the HTTP decoder refuses, bad chunked bodies, clients that leave
 * mid-body) on a service of its own: each is a DEBUG line, and together they make exactly one WARN
 * line (the rate-limited summary, no stack) and no ERROR. The test waits for the DEBUG lines of every
 * request of the burst, then checks the whole log.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"logging.level.dev.corobridge.demo.web=DEBUG",
                "demo.data-dir=target/test-data/fault-burst-test-${random.uuid}"})
class ClientFaultBurstTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @LocalServerPort
    int port;

    @Test
    void aBurstOfClientFaultsMakesOneWarnLineAndNoError(CapturedOutput output) throws Exception {
        int from = output.getAll().length();
        String board;
        try (RawHttp c = new RawHttp(port)) {
            RawHttp.Response r = c.exchange(RawHttp.json("POST", "/api/boards", "{\"name\":\"burst\"}"));
            board = r.body().replaceAll("(?s).*\"id\":\"(b\\d+)\".*", "$1");
        }
        String notes = "/api/boards/" + board + "/notes";
        int rounds = 10;
        for (int i = 0; i < rounds; i++) {
            for (String bad : List.of("GET /api/ping HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n",
                    "GET /api/ping HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n",
                    "POST " + notes + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                            + "\r\nzz\r\n{\"text\":\"x\"}\r\n0\r\n\r\n")) {
                try (RawHttp c = new RawHttp(port)) {
                    assertThat(c.exchange(bad).status()).isEqualTo(400);
                }
            }
            try (RawHttp c = new RawHttp(port)) {
                c.send("POST " + notes + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 1000\r\n\r\n{\"text\":\"leaving");
            } // closed mid-body
        }
        awaitLines(output, from, "refused by the HTTP decoder", 3 * rounds);
        awaitLines(output, from, "POST " + notes + " ended by the client", 2 * rounds); // bad chunks and leavers
        String log = output.getAll().substring(from);
        assertThat(log.lines().filter(l -> l.contains(" ERROR "))).as("ERROR lines in:\n%s", log).isEmpty();
        assertThat(log.lines().filter(l -> l.startsWith("\tat "))).as("stack frames in:\n%s", log).isEmpty();
        assertThat(log.lines().filter(l -> l.contains(" WARN "))).as("WARN lines in:\n%s", log)
                .singleElement().satisfies(l -> assertThat(l).contains(ClientFaultSummary.class.getSimpleName())
                        .containsPattern(" WARN .* 1 client fault "));
    }

    private static void awaitLines(CapturedOutput output, int from, String text, int count) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (output.getAll().substring(from).lines().filter(l -> l.contains(text)).count() >= count) {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError(count + " lines with '" + text + "' were not logged within " + WAIT + ":\n"
                + output.getAll().substring(from));
    }
}
