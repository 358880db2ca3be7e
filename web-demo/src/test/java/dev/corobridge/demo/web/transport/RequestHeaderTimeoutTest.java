package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;

import dev.corobridge.demo.web.RawHttp;

/**
 * Slow clients (slowloris): a client whose request headers do not arrive within
 * {@code demo.http.header-timeout} gets 408 (problem JSON) and its connection is closed, on a fresh
 * connection and on a kept-alive one alike, while other clients are answered meanwhile. The
 * timeout is short here (1 s); the test waits for the server's answer, never for time to pass.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"demo.http.header-timeout=1s", "demo.data-dir=target/test-data/header-timeout-test-${random.uuid}"})
class RequestHeaderTimeoutTest {

    @org.springframework.boot.test.web.server.LocalServerPort
    int port;

    @Test
    void headersThatNeverFinishAreAnsweredWith408AndTheConnectionCloses() throws Exception {
        List<RawHttp> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 20; i++) {
                RawHttp c = new RawHttp(port);
                c.send("GET /api/ping HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + i); // never finished
                slow.add(c);
            }
            // Others are served meanwhile.
            try (RawHttp other = new RawHttp(port)) {
                assertThat(other.exchange(RawHttp.get("/api/ping")).status()).isEqualTo(200);
            }
            for (RawHttp c : slow) {
                RawHttp.Response r = c.read();
                assertThat(r.status()).isEqualTo(408);
                assertThat(r.header("content-type")).startsWith("application/problem+json");
                assertThat(r.body()).contains("\"status\":408");
                assertThat(r.header("connection")).isEqualToIgnoringCase("close");
                assertThat(c.closedByServer()).isTrue();
            }
        } finally {
            for (RawHttp c : slow) {
                c.close();
            }
        }
    }

    @Test
    void theTimeoutIsCheckedWhenBound() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new dev.corobridge.demo.DemoProperties.HttpSettings(
                java.time.Duration.ofMillis(500), java.time.Duration.ofSeconds(20),
                org.springframework.util.unit.DataSize.ofMegabytes(256), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("demo.http.header-timeout");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new HttpTransport(new ConnectionTracker(), new ServiceState(),
                new ClientFaultSummary(), java.time.Duration.ZERO, java.time.Duration.ofSeconds(20)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("header");
    }

    @Test
    void theDeadlineStartsAgainForEachRequestOfAKeptAliveConnection() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            for (int i = 0; i < 3; i++) {
                assertThat(c.exchange(RawHttp.get("/api/ping")).status()).isEqualTo(200);
            }
            c.send("GET /api/ping HTTP/1.1\r\nHost: loc");
            assertThat(c.read().status()).isEqualTo(408);
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @Test
    void theBeginningOfAHeadSentWithTheRequestBeforeItIsTimedOutOnceThatOneIsAnswered() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send(RawHttp.get("/api/ping") + "GET /api/ping HTTP/1.1\r\nHo"); // one write: likely one read
            assertThat(c.read().status()).isEqualTo(200);
            RawHttp.Response late = c.read();
            assertThat(late.status()).isEqualTo(408);
            assertThat(late.body()).contains("\"status\":408");
            assertThat(c.closedByServer()).isTrue();
        }
    }
}
