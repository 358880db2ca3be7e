package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import dev.corobridge.demo.web.LiveServiceTestBase;
import dev.corobridge.demo.web.RawHttp;

/**
 * An event stream asked for in HTTP/1.0, on the running service: HTTP/1.0 has no chunked transfer
 * coding (RFC 9112, section 6.1: a server must not send {@code Transfer-Encoding} to it), so the
 * answer's events come as they are, its end is the end of the connection, and the answer says the
 * connection closes, also when the request asked to keep it alive. Both streams of both faces.
 */
class Http10EventStreamTest extends LiveServiceTestBase {

    @ParameterizedTest(name = "{0}{1} {2}")
    @CsvSource({
            "/api, /boards/{id}/events, ''",
            "/api/kt, /boards/{id}/events, ''",
            "/api, /boards/events, ''",
            "/api/kt, /boards/events, ''",
            "/api, /boards/{id}/events, 'Connection: keep-alive\r\n'",
            "/api/kt, /boards/events, 'Connection: keep-alive\r\n'"})
    void anHttp10EventStreamIsNotChunkedAndEndsWithTheConnection(String face, String target, String header) throws Exception {
        String board = createBoard(face, "http 1.0");
        String path = face + target.replace("{id}", board);
        try (RawHttp c = new RawHttp(port)) {
            c.send("GET " + path + " HTTP/1.0\r\nAccept: text/event-stream\r\n" + header + "\r\n");
            String status = c.readStatusLine();
            Map<String, String> head = new LinkedHashMap<>();
            for (String h = c.readLine(); !h.isEmpty(); h = c.readLine()) {
                int colon = h.indexOf(':');
                head.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim().toLowerCase(Locale.ROOT));
            }
            assertThat(status).as("status line").endsWith("200 OK");
            assertThat(head).as("head of %s", status).doesNotContainKey("transfer-encoding").doesNotContainKey("content-length");
            assertThat(head.getOrDefault("connection", "close")).as("an answer delimited by the close says so").isEqualTo("close");
            // The first event, as it is: its lines are the event's fields, not a chunk's size.
            StringBuilder first = new StringBuilder();
            for (String line = c.readLine(); !line.isEmpty(); line = c.readLine()) {
                assertThat(line).matches("(id|event|data):.*");
                first.append(line).append('\n');
            }
            assertThat(first.toString()).contains("event:").contains("data:").contains(board);
            // A change arrives the same way.
            addNote(face, board, "after the snapshot");
            String next = c.readLine();
            while (next.isEmpty()) {
                next = c.readLine();
            }
            assertThat(next).matches("(id|event):.*");
        }
    }
}
