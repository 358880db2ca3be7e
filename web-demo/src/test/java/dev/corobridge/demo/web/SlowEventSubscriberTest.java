package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.json.JsonMapper;

/**
 * An event stream whose client stops reading falls behind by more than {@code demo.event-buffer}
 * events and is disconnected (API.md, "Server-sent events"): its connection closes, so the client
 * sees the end and reconnects for a fresh snapshot. Before, the stream was ended after its buffered
 * events, and the answer never finished: a client that read on got those events and then nothing,
 * the connection open until the idle timeout (60 s), the events since then lost to it.
 *
 * <p>Two streams that do not read (the board's, on both faces), each on a socket with a small
 * receive buffer; writers add large notes until the service has dropped both subscribers
 * ({@code /api/live}); then, while the clients still do not read, both connections must be closed
 * (the DEBUG line of each disconnect), and each socket must reach its end when read: the bytes the
 * kernel still holds for it, then end of stream or a reset. The wait is bounded far below the idle timeout. (The board list's
 * stream ends the same way: both are one {@code BoardService} stream.)
 */
@ExtendWith(OutputCaptureExtension.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"demo.event-buffer=16", "server.netty.idle-timeout=120s", "logging.level.dev.corobridge.demo.web=DEBUG",
                "demo.data-dir=target/test-data/slow-subscriber-test-${random.uuid}"})
class SlowEventSubscriberTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TEXT = "x".repeat(2000);

    @LocalServerPort
    int port;


    @Test
    void aSubscriberThatFallsBehindIsDisconnectedOnEveryStream(CapturedOutput output) throws Exception {
        String board = JSON.readTree(post("/api/boards", "{\"name\":\"slow readers\"}").body()).path("id").asString();
        List<Socket> readers = new ArrayList<>();
        try {
            for (String path : List.of("/api/boards/" + board + "/events", "/api/kt/boards/" + board + "/events")) {
                Socket s = new Socket();
                s.setReceiveBufferSize(4096);
                s.connect(new InetSocketAddress("localhost", port));
                s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
                readers.add(s);
            }
            awaitSubscribers(2);

            // Write until every stream has fallen behind and been dropped (bounded by the board's limit).
            AtomicBoolean stop = new AtomicBoolean();
            ExecutorService writers = Executors.newFixedThreadPool(4);
            List<Future<Integer>> written = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                written.add(writers.submit(() -> {
                    int n = 0;
                    while (!stop.get() && n < 2000) {
                        HttpResponse<String> r = post("/api/boards/" + board + "/notes", "{\"text\":\"" + TEXT + "\"}");
                        assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
                        n++;
                    }
                    return n;
                }));
            }
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (subscribers() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(50); // polling pace
            }
            stop.set(true);
            for (Future<Integer> f : written) {
                f.get(3, TimeUnit.MINUTES);
            }
            writers.shutdown();
            assertThat(subscribers()).as("every slow subscriber was dropped").isZero();
            // Closed while the clients still do not read: a failure queued behind the buffered events
            // would only be delivered once they read them.
            long closedBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (countOf(output.getAll(), "events behind; its connection is closed") < 2 && System.nanoTime() < closedBy) {
                Thread.sleep(50); // polling pace
            }
            assertThat(countOf(output.getAll(), "events behind; its connection is closed"))
                    .as("connections closed without the clients reading").isEqualTo(2);

            for (Socket s : readers) {
                assertThat(readsToTheEnd(s)).as("the dropped stream's connection ends").isTrue();
            }
        } finally {
            for (Socket s : readers) {
                s.close();
            }
        }
    }

    private static int countOf(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    /** Reads until end of stream or a reset ({@code true}), or until 20 s pass without a byte ({@code false}). */
    private static boolean readsToTheEnd(Socket s) throws IOException {
        s.setSoTimeout(20_000);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[65536];
        try {
            while (in.read(buf) >= 0) {
                // discard: only the end matters
            }
            return true;
        } catch (SocketTimeoutException stalled) {
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }

    private void awaitSubscribers(int count) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (subscribers() != count && System.nanoTime() < deadline) {
            Thread.sleep(20); // polling pace
        }
        assertThat(subscribers()).isEqualTo(count);
    }

    private int subscribers() throws Exception {
        return service().subscribers();
    }

    private HttpResponse<String> post(String path, String body) throws Exception {
        return service().post(path, body);
    }

    private ServiceHttp service() {
        return new ServiceHttp(port);
    }
}
