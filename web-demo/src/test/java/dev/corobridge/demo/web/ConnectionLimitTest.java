package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The service takes at most {@code demo.http.max-connections} connections at once (by default a
 * share of the process's open-file limit): one more is answered {@code 503} problem JSON with
 * {@code Retry-After} and closed, and a WARN line says so (one a minute at most). Without a limit,
 * connections took every file descriptor of the process and the service stopped answering anyone,
 * its health included, without a word.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"demo.http.max-connections=8", "demo.data-dir=target/test-data/connection-limit-test-${random.uuid}"})
class ConnectionLimitTest {

    @LocalServerPort
    int port;

    @Test
    void aConnectionBeyondTheLimitIsRefusedClearlyAndTheServiceGoesOn(CapturedOutput output) throws Exception {
        List<Socket> idle = new ArrayList<>();
        try {
            for (int i = 0; i < 8; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
                idle.add(s);
            }
            awaitAnswer(503); // the ninth: refused (the idle ones are accepted in their order, before it)
            assertThat(output.getAll()).contains("demo.http.max-connections");
            for (Socket s : idle.subList(0, 2)) {
                s.close();
            }
            awaitAnswer(200); // room again once the server has seen them close
        } finally {
            for (Socket s : idle) {
                s.close();
            }
        }
    }

    /** Asks for /api/ping on new connections until one answers {@code status} (bounded). */
    private void awaitAnswer(int status) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        RawHttp.Response last = null;
        while (System.nanoTime() < deadline) {
            try (RawHttp c = new RawHttp(port)) {
                last = c.exchange("GET /api/ping HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            if (last.status() == status) {
                if (status == 503) {
                    assertThat(last.header("content-type")).startsWith("application/problem+json");
                    assertThat(last.header("retry-after")).isEqualTo("1");
                    assertThat(last.body()).contains("demo.http.max-connections");
                }
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no " + status + " within 30 s; the last answer: " + last);
    }
}
