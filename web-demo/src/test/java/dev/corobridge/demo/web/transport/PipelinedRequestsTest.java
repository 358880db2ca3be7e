package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;

import dev.corobridge.demo.web.LiveServiceTestBase;
import dev.corobridge.demo.web.RawHttp;

/**
 * Pipelined requests (sent together, before any answer) on the running service: every complete
 * request is answered, in order, and a request that asks to close the connection
 * ({@code Connection: close}, or HTTP/1.0 without keep-alive) is answered too, with
 * {@code Connection: close}, and then the connection closes (RFC 9112, section 9.6): it is not left
 * open, nor closed before that answer. Requests after it are not served. Endpoints answered on the
 * event loop (ping) and after a pump hop (a board snapshot, both faces) are sent.
 *
 * <p>The web package logs at INFO during these tests, as in the packaged service: at DEBUG each
 * request is logged, which changes when an answer is written relative to the next request's
 * arrival, and that timing decides which requests went unanswered before the fix.
 */
class PipelinedRequestsTest extends LiveServiceTestBase {

    private static final String WEB = "dev.corobridge.demo.web";
    /** The level the shared context configured (DEBUG), restored after these tests. */
    private static LogLevel configured;

    @BeforeEach
    void logAsShipped() { // once the context (which configures logging) has started
        LoggingSystem logging = LoggingSystem.get(PipelinedRequestsTest.class.getClassLoader());
        if (configured == null) {
            configured = logging.getLoggerConfiguration(WEB).getConfiguredLevel();
        }
        logging.setLogLevel(WEB, LogLevel.INFO);
    }

    @AfterAll
    static void restoreLogging() {
        LoggingSystem.get(PipelinedRequestsTest.class.getClassLoader()).setLogLevel(WEB, configured);
    }

    private String createBoard() throws Exception {
        return createBoard("/api", "pipelined");
    }

    static Stream<Arguments> targetsAndRequestsBefore() {
        return Stream.of("/api/ping", "/api/boards/{id}", "/api/kt/boards/{id}")
                .flatMap(t -> Stream.of(0, 1, 2, 3).map(n -> Arguments.of(t, n)));
    }

    @ParameterizedTest(name = "{0} with {1} before")
    @MethodSource("targetsAndRequestsBefore")
    void everyPipelinedRequestUpToOneThatClosesIsAnsweredThenTheConnectionCloses(String target, int before) throws Exception {
        String path = target.replace("{id}", createBoard());
        String get = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n";
        try (RawHttp c = new RawHttp(port)) {
            c.send((get + "\r\n").repeat(before)
                    + get + "Connection: close\r\n\r\n"
                    + get + "\r\n"); // after the close: not served
            List<Integer> statuses = new ArrayList<>();
            List<String> connection = new ArrayList<>();
            for (int i = 0; i <= before; i++) {
                RawHttp.Response r = c.read();
                statuses.add(r.status());
                connection.add(String.valueOf(r.header("connection")).toLowerCase(Locale.ROOT));
            }
            assertThat(statuses).as("answers").containsOnly(200).hasSize(before + 1);
            assertThat(connection.subList(0, before)).as("the answers before").doesNotContain("close");
            assertThat(connection.get(before)).as("the answer to the request that closes").isEqualTo("close");
            assertThat(c.closedByServer()).as("closed after that answer, nothing more sent").isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api/ping", "/api/boards/{id}", "/api/kt/boards/{id}"})
    void anHttp10RequestWithoutKeepAliveIsTheLastOneServed(String target) throws Exception {
        String path = target.replace("{id}", createBoard());
        try (RawHttp c = new RawHttp(port)) {
            c.send("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET " + path + " HTTP/1.0\r\n\r\n"
                    + "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(c.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api/boards/{id}/notes", "/api/kt/boards/{id}/notes"})
    void pipelinedWritesAreEachAnsweredAndAppliedOnce(String target) throws Exception {
        String board = createBoard();
        String path = target.replace("{id}", board);
        StringBuilder all = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            String body = "{\"text\":\"piped " + i + "\"}";
            all.append("POST ").append(path).append(" HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n")
                    .append(i == 4 ? "Connection: close\r\n" : "").append("Content-Length: ").append(body.length())
                    .append("\r\n\r\n").append(body);
        }
        try (RawHttp c = new RawHttp(port)) {
            c.send(all.toString());
            for (int i = 0; i < 5; i++) {
                assertThat(c.read().status()).as("answer %d", i).isEqualTo(201);
            }
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawHttp c = new RawHttp(port)) {
            String snapshot = c.exchange(RawHttp.get("/api/boards/" + board)).body();
            for (int i = 0; i < 5; i++) {
                assertThat(snapshot.split("piped " + i, -1)).as("note %d, once", i).hasSize(2);
            }
        }
    }
}
