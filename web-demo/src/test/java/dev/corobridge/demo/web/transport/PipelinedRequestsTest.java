package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.corobridge.demo.web.LiveServiceTestBase;
import dev.corobridge.demo.web.RawHttp;

/**
 * Pipelined requests (sent together, before any answer) on the running service: every complete
 * request is answered, in order, and a request that asks to close the connection
 * ({@code Connection: close}) is answered too, with {@code Connection: close}, and then the
 * connection closes (RFC 9112, section 9.6): it is not left open, nor closed before that answer.
 * Requests after it are not served. Both a one-hop endpoint (a board snapshot, answered after a
 * pump hop) and one answered on the event loop (ping) are sent, on both faces.
 */
class PipelinedRequestsTest extends LiveServiceTestBase {

    private String createBoard() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            RawHttp.Response r = c.exchange(RawHttp.json("POST", "/api/boards", "{\"name\":\"pipelined\"}"));
            assertThat(r.status()).isEqualTo(201);
            return r.body().replaceAll("(?s).*\"id\":\"(b\\d+)\".*", "$1");
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api/ping", "/api/boards/{id}", "/api/kt/boards/{id}"})
    void everyPipelinedRequestUpToOneThatClosesIsAnsweredThenTheConnectionCloses(String target) throws Exception {
        String path = target.replace("{id}", createBoard());
        try (RawHttp c = new RawHttp(port)) {
            c.send("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    + "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                    + "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n"); // after the close: not served
            List<Integer> statuses = new ArrayList<>();
            List<String> connection = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                RawHttp.Response r = c.read();
                statuses.add(r.status());
                connection.add(String.valueOf(r.header("connection")).toLowerCase(java.util.Locale.ROOT));
            }
            assertThat(statuses).containsExactly(200, 200, 200);
            assertThat(connection.get(2)).as("the answer to the request that closes").isEqualTo("close");
            assertThat(c.closedByServer()).as("closed after that answer, nothing more sent").isTrue();
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
