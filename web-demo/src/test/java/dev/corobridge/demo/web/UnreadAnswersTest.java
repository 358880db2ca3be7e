package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.json.JsonMapper;

import dev.corobridge.demo.web.transport.ConnectionTracker;

/**
 * Answers written to clients that do not read them are held within one budget for all connections
 * ({@code demo.http.max-unsent-output}): beyond it the connections holding the most are closed. A
 * client that opened event streams (or GETs) on a large board and never read made the service hold
 * the whole board's JSON per connection, without a limit (gigabytes for a few hundred such clients,
 * until the service stopped answering); {@code demo.event-buffer} only bounds the change events
 * queued after the first snapshot.
 *
 * <p>Ten connections that never read (small receive buffers) each ask for the stream of a board of
 * about 9 MB, with a budget of 2 MB: they must be closed (read afterwards, each reaches its end),
 * while the service goes on answering others in full.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"demo.http.max-unsent-output=2MB", "server.netty.idle-timeout=120s",
                "demo.data-dir=target/test-data/unread-answers-test-${random.uuid}"})
class UnreadAnswersTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int CLIENTS = 10;
    private static final int NOTES = 1_500;

    @LocalServerPort
    int port;

    @Autowired
    ConnectionTracker connections;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void connectionsHoldingMoreUnreadOutputThanTheBudgetAreClosed() throws Exception {
        String board = JSON.readTree(post("/api/boards", "{\"name\":\"large\"}").body()).path("id").asString();
        // 1,500 notes of 2,000 euro signs: 9 MB of JSON, more than a socket's send buffer takes (4 MB at most).
        String note = "{\"text\":\"" + "\u20ac".repeat(2000) + "\"}";
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> added = new ArrayList<>();
            for (int i = 0; i < NOTES; i++) {
                added.add(writers.submit(() -> post("/api/boards/" + board + "/notes", note).statusCode()));
            }
            for (Future<Integer> f : added) {
                assertThat(f.get()).isEqualTo(201);
            }
        } finally {
            writers.shutdownNow();
        }
        int before = connections.open(); // the writers' keep-alive connections
        List<Socket> readers = new ArrayList<>();
        try {
            for (int i = 0; i < CLIENTS; i++) {
                Socket s = new Socket();
                s.setReceiveBufferSize(4096);
                s.connect(new InetSocketAddress("localhost", port));
                String path = (i % 2 == 0 ? "/api" : "/api/kt") + "/boards/" + board + "/events";
                s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                readers.add(s);
            }
            // The service checks its connections' unsent output four times a second: wait (bounded)
            // until it has closed all but one of them (a closed connection leaves the tracker).
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (connections.open() > before + 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }

            // Meanwhile the service answers a client that reads, in full.
            HttpResponse<String> whole = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/boards/" + board))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(whole.statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(whole.body()).path("notes").size()).isEqualTo(NOTES);

            int closed = 0;
            for (Socket s : readers) {
                if (reachesItsEnd(s)) {
                    closed++;
                }
            }
            // 2 MB holds none of them whole: each holds what its socket's send buffer did not take.
            assertThat(closed).as("connections closed of " + CLIENTS).isGreaterThanOrEqualTo(CLIENTS - 1);
        } finally {
            for (Socket s : readers) {
                s.close();
            }
        }
    }

    /** Reads what the socket holds; true if the server closed it (end of stream or a reset), false if it stays open. */
    private static boolean reachesItsEnd(Socket s) throws IOException {
        s.setSoTimeout(2_000);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[64 * 1024];
        try {
            while (true) {
                if (in.read(buf) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private HttpResponse<String> post(String path, String json) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
