package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.json.JsonMapper;

/**
 * A client that asks for an event stream and leaves at once (a reset right after the request, or a
 * plain close before the first event) leaves no subscription behind (API.md: "a client that
 * disconnects ... its subscription ends") and no ERROR in the log (a client that leaves before its
 * answer is the client's doing, logged at DEBUG). Before, most such subscriptions stayed registered
 * on the pump, each holding its buffer, until 1,024 later changes overflowed it (never, on a quiet
 * board); and each plain close logged two ERROR lines with stack traces.
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "demo.data-dir=target/test-data/aborted-subscriber-test-${random.uuid}")
class AbortedEventSubscriberTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int CLIENTS = 100;

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void clientsThatLeaveRightAfterAskingForAStreamLeaveNoSubscriptionAndNoError(CapturedOutput output) throws Exception {
        String board = JSON.readTree(post("/api/boards", "{\"name\":\"left at once\"}").body()).path("id").asString();
        List<String> paths = List.of("/api/boards/" + board + "/events", "/api/kt/boards/" + board + "/events",
                "/api/boards/events", "/api/kt/boards/events");
        for (boolean reset : new boolean[] {true, false}) {
            for (int i = 0; i < CLIENTS; i++) {
                RawHttp client = new RawHttp(port);
                client.send("GET " + paths.get(i % paths.size()) + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n");
                if (reset) {
                    client.reset();
                } else {
                    client.close();
                }
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        int subscribers;
        while ((subscribers = subscribers()) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50); // polling pace
        }
        assertThat(subscribers).as("subscriptions left by %d clients that left at once", 2 * CLIENTS).isZero();
        assertThat(output.getAll()).as("the log").doesNotContain(" ERROR ").doesNotContain("ClosedChannelException");
    }

    /** HEAD answers what GET would (RFC 9110): 404 for an unknown board's stream, 200 for a known one; and subscribes nothing. */
    @Test
    void headOfAnEventStreamAnswersTheStatusItsGetWould() throws Exception {
        String board = JSON.readTree(post("/api/boards", "{\"name\":\"heads\"}").body()).path("id").asString();
        for (String face : List.of("/api", "/api/kt")) {
            for (String path : List.of("/boards/b999999/events", "/boards/" + board + "/events", "/boards/events")) {
                HttpResponse<String> head = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + face + path))
                        .header("Accept", "text/event-stream").method("HEAD", HttpRequest.BodyPublishers.noBody()).build(),
                        HttpResponse.BodyHandlers.ofString());
                int expected = path.contains("b999999") ? 404 : 200;
                assertThat(head.statusCode()).as("HEAD " + face + path).isEqualTo(expected);
                assertThat(head.body()).as("HEAD " + face + path).isEmpty();
                if (expected == 404) { // a known stream's GET never ends: only the unknown one is compared
                    HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + face + path))
                            .header("Accept", "text/event-stream").build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(get.statusCode()).as("GET " + face + path).isEqualTo(404);
                }
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (subscribers() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50); // polling pace
        }
        assertThat(subscribers()).isZero();
    }

    private int subscribers() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/live")).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body()).path("pump").path("subscribers").asInt();
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
