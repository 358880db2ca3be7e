package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;

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

    private static final int CLIENTS = 100;

    @LocalServerPort
    int port;

    @Test
    void clientsThatLeaveRightAfterAskingForAStreamLeaveNoSubscriptionAndNoError(CapturedOutput output) throws Exception {
        ServiceHttp service = new ServiceHttp(port);
        String board = service.newBoard("left at once");
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
        while ((subscribers = service.subscribers()) > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50); // polling pace
        }
        assertThat(subscribers).as("subscriptions left by %d clients that left at once", 2 * CLIENTS).isZero();
        assertThat(output.getAll()).as("the log").doesNotContain(" ERROR ").doesNotContain("ClosedChannelException");
    }

    /** HEAD answers what GET would (RFC 9110): 404 for an unknown board's stream, 200 for a known one; and subscribes nothing. */
    @Test
    void headOfAnEventStreamAnswersTheStatusItsGetWould() throws Exception {
        ServiceHttp service = new ServiceHttp(port);
        String board = service.newBoard("heads");
        for (String face : List.of("/api", "/api/kt")) {
            for (String path : List.of("/boards/b999999/events", "/boards/" + board + "/events", "/boards/events")) {
                HttpResponse<String> head = service.headOfStream(face + path);
                int expected = path.contains("b999999") ? 404 : 200;
                assertThat(head.statusCode()).as("HEAD " + face + path).isEqualTo(expected);
                assertThat(head.body()).as("HEAD " + face + path).isEmpty();
                if (expected == 404) { // a known stream's GET never ends: only the unknown one is compared
                    HttpResponse<String> get = service.getOfStream(face + path);
                    assertThat(get.statusCode()).as("GET " + face + path).isEqualTo(404);
                }
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (service.subscribers() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50); // polling pace
        }
        assertThat(service.subscribers()).isZero();
    }
}
