package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.corobridge.demo.DemoProperties;
import dev.corobridge.demo.web.RawHttp;

/**
 * Slow bodies: a client that sends a request's headers, then stops its body or trickles it, gets
 * 408 (problem JSON, {@code Connection: close}) once {@code demo.http.body-timeout} has passed and
 * its connection is closed, while other clients are served meanwhile; nothing of the request is
 * applied. The timeout is short here (1 s); the tests wait for the server's answer, never for time
 * to pass, and assert the outcome, not how long it took.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"demo.http.body-timeout=1s", "demo.data-dir=target/test-data/body-timeout-test-${random.uuid}"})
class RequestBodyTimeoutTest {

    @LocalServerPort
    int port;

    private String createBoard(RawHttp c) throws IOException {
        RawHttp.Response r = c.exchange(RawHttp.json("POST", "/api/boards", "{\"name\":\"slow\"}"));
        assertThat(r.status()).isEqualTo(201);
        return r.body().replaceAll("(?s).*\"id\":\"(b\\d+)\".*", "$1");
    }

    private static void assertTimedOut(RawHttp c, String name) throws IOException {
        RawHttp.Response r = c.read();
        assertThat(r.status()).as(name).isEqualTo(408);
        assertThat(r.header("content-type")).as(name).startsWith("application/problem+json");
        assertThat(r.body()).as(name).contains("\"status\":408").contains("body");
        assertThat(r.header("connection")).as(name).isEqualToIgnoringCase("close");
        assertThat(c.closedByServer()).as(name).isTrue();
    }

    @Test
    void aBodyThatStopsShortIsAnsweredWith408AndTheConnectionCloses() throws Exception {
        List<RawHttp> slow = new ArrayList<>();
        try (RawHttp other = new RawHttp(port)) {
            String board = createBoard(other);
            String notes = "/api/boards/" + board + "/notes";
            for (int i = 0; i < 10; i++) {
                RawHttp c = new RawHttp(port);
                slow.add(c);
                String face = i % 2 == 0 ? "/api" : "/api/kt";
                c.send("POST " + face + "/boards/" + board + "/notes HTTP/1.1\r\nHost: localhost\r\n"
                        + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"text\":\"never fin"); // 982 bytes short
            }
            RawHttp chunked = new RawHttp(port);
            slow.add(chunked);
            chunked.send("POST " + notes + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n5\r\n{\"tex\r\n"); // no last chunk, ever
            // Others are served meanwhile, on a kept-alive connection.
            assertThat(other.exchange(RawHttp.get("/api/ping")).status()).isEqualTo(200);
            assertThat(other.exchange(RawHttp.json("POST", notes, "{\"text\":\"served\"}")).status()).isEqualTo(201);
            for (int i = 0; i < slow.size(); i++) {
                assertTimedOut(slow.get(i), "slow client " + i);
            }
            // Nothing of the slow requests was applied: the board holds the one note of the other client.
            RawHttp.Response b = other.exchange(RawHttp.get("/api/boards/" + board));
            assertThat(b.body()).contains("\"revision\":1").contains("served").doesNotContain("never");
        } finally {
            for (RawHttp c : slow) {
                c.close();
            }
        }
    }

    @Test
    void aTrickledBodyGetsNoMoreTimeThanAStoppedOne() throws Exception {
        try (RawHttp other = new RawHttp(port); RawHttp c = new RawHttp(port)) {
            String board = createBoard(other);
            int length = 60_000; // under demo.max-body; at one byte per pacing step, far more than the timeout allows
            c.send("POST /api/boards/" + board + "/notes HTTP/1.1\r\nHost: localhost\r\n"
                    + "Content-Type: application/json\r\nContent-Length: " + length + "\r\n\r\n");
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger sent = new AtomicInteger();
            Thread trickle = Thread.ofPlatform().name("trickle").start(() -> {
                try {
                    // The pause paces the client (that is what a trickling client does); the test waits
                    // for the server's answer, not for this.
                    while (!stop.get() && sent.get() < length) {
                        c.send(new byte[] {'x'});
                        sent.incrementAndGet();
                        Thread.sleep(20);
                    }
                } catch (IOException | InterruptedException closed) {
                    // the server closed the connection: the trickle ends
                }
            });
            try {
                assertTimedOut(c, "trickling client");
                assertThat(sent.get()).as("bytes sent when the answer came").isLessThan(length);
            } finally {
                stop.set(true);
                trickle.join();
            }
            assertThat(other.exchange(RawHttp.get("/api/boards/" + board)).body()).contains("\"revision\":0");
        }
    }

    @Test
    void anAnswerThatWasSentIsNotFollowedByA408() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            // text/plain: refused with 415 before the body is read; the body never completes.
            c.send("POST /api/boards HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\n"
                    + "Content-Length: 1000\r\n\r\nabc");
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(415);
            assertThat(c.closedByServer()).as("the connection closes with no second answer").isTrue();
        }
    }

    private static final org.springframework.util.unit.DataSize DEFAULT_UNSENT = org.springframework.util.unit.DataSize.ofMegabytes(256);

    @Test
    void theTimeoutIsCheckedWhenBound() {
        assertThatThrownBy(() -> new DemoProperties.HttpSettings(Duration.ofSeconds(10), Duration.ofMillis(999), DEFAULT_UNSENT, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("demo.http.body-timeout");
        assertThatThrownBy(() -> new DemoProperties.HttpSettings(Duration.ofSeconds(10), Duration.ofMinutes(11), DEFAULT_UNSENT, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("demo.http.body-timeout");
        assertThatThrownBy(() -> new HttpTransport(new ConnectionTracker(), new ServiceState(), new ClientFaultSummary(),
                Duration.ofSeconds(10), Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("body");
        assertThat(new DemoProperties.HttpSettings(Duration.ofSeconds(10), Duration.ofSeconds(1), DEFAULT_UNSENT, 0).bodyTimeout())
                .isEqualTo(Duration.ofSeconds(1));
    }
}
