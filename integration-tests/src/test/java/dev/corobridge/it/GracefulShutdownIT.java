package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * SIGTERM while the service is under write load from {@value #FRESH_WRITERS} clients that open a
 * fresh connection per request ({@code Connection: close}), {@value #KEEP_ALIVE_WRITERS} clients that
 * keep their connection alive, and an SSE subscriber. All of them speak HTTP over plain sockets
 * ({@link RawHttpConnection}) so that every outcome is exact, and they behave as well-mannered
 * clients do: a client told {@code 503} waits {@code Retry-After} before it tries again, and a client
 * told {@code Connection: close} opens a new connection for its next request.
 *
 * <p>The contract (web-demo/API.md, "Shutdown"): every request whose connection was established and
 * whose bytes were written gets a complete HTTP answer: it completes (2xx), or it is refused with a
 * 503 problem carrying {@code Connection: close} and {@code Retry-After}. No connection is reset,
 * none closed without an answer; a connection attempt may only be refused outright (nothing was
 * sent). Afterwards: the process exited within the configured shutdown phase timeout, its log shows
 * no Reactor Netty loop that could not be disposed and no refusal logged as an error, the pump's
 * shutdown report says 0 abandoned coroutines, and after a restart every acknowledged note is there.
 */
class GracefulShutdownIT {

    static final int FRESH_WRITERS = 48;
    static final int KEEP_ALIVE_WRITERS = 8;
    static final int TIMEOUT_SECONDS = 10;
    private static final Pattern REPORT = Pattern.compile("MessagePump '.*' terminated.*abandoned: (\\d+) coroutines");
    private static final Pattern LOOPS_NOT_DISPOSED = Pattern.compile("couldn't be disposed");
    private static final Pattern PHASE_TIMEOUT = Pattern.compile("Graceful shutdown aborted|still running after timeout|Failed to stop bean");
    private static final Pattern ERROR_OR_STACK = Pattern.compile(" ERROR |^\tat ");
    private static final Pattern REFUSAL_LOGGED_AS_ERROR =
            Pattern.compile("ERROR.*failed: the (service is shutting down|request was cancelled)");

    @TempDir
    static Path data;

    @AfterAll
    static void noLeftovers() {
        DemoProcess.assertNoLeftovers();
    }

    enum Client { FRESH, KEEP_ALIVE }

    /**
     * One request on an established connection: its response, or the error that ended it.
     *
     * @param nth which request this was on its connection (1 = the first)
     */
    record Outcome(Client client, int nth, long sentAtNanos, RawHttpConnection.Response response, String error) {
    }

    @Test
    void sigtermAnswersEveryAcceptedRequestAndLosesNothing() throws Exception {
        DemoProcess demo = DemoProcess.start("graceful", data,
                "spring.lifecycle.timeout-per-shutdown-phase=" + TIMEOUT_SECONDS + "s");
        Map<String, String> acked = new ConcurrentHashMap<>(); // note id -> text
        ConcurrentLinkedQueue<Outcome> outcomes = new ConcurrentLinkedQueue<>();
        AtomicLong sigtermAt = new AtomicLong(Long.MAX_VALUE);
        CountDownLatch exited = new CountDownLatch(1);
        LongAdder refusedBefore = new LongAdder();
        LongAdder refusedAfter = new LongAdder();
        Optional<Integer> exit;
        long exitMillis;
        String board;
        try {
            Scenarios s = new Scenarios(demo.http());
            board = s.createBoard("/api", "graceful").path("id").asText();
            int port = Integer.parseInt(demo.baseUrl().substring(demo.baseUrl().lastIndexOf(':') + 1));
            SseStream sse = SseStream.open(demo.http(), "/api/boards/" + board + "/events");
            sse.next(Duration.ofSeconds(10)); // the snapshot

            Writers writers = new Writers(port, board, acked, outcomes, sigtermAt, exited, refusedBefore, refusedAfter);
            try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int w = 0; w < FRESH_WRITERS; w++) {
                    int writer = w;
                    ex.submit(() -> writers.run(Client.FRESH, writer));
                }
                for (int w = 0; w < KEEP_ALIVE_WRITERS; w++) {
                    int writer = FRESH_WRITERS + w;
                    ex.submit(() -> writers.run(Client.KEEP_ALIVE, writer));
                }
                // SIGTERM once the writers are really under way (however slow the machine is),
                // so that requests are in flight when it lands.
                Check.eventually(60_000, () -> acked.size() >= 100
                                && outcomes.stream().anyMatch(o -> o.client() == Client.KEEP_ALIVE && o.nth() > 1),
                        "100 acknowledged writes, keep-alive connections reused, before SIGTERM");
                sigtermAt.set(System.nanoTime());
                demo.terminate();
                exit = demo.waitFor(Duration.ofSeconds(TIMEOUT_SECONDS + 30));
                exitMillis = (System.nanoTime() - sigtermAt.get()) / 1_000_000;
                exited.countDown();
            }
            assertThat(sse.awaitEnd(Duration.ofSeconds(5))).as("the SSE stream ends when the service stops").isTrue();
            sse.close();
        } finally {
            exited.countDown();
            demo.close();
        }

        List<String> violations = new ArrayList<>();
        Map<String, Integer> counts = new HashMap<>();
        for (Outcome o : outcomes) {
            long msAfterSigterm = (o.sentAtNanos() - sigtermAt.get()) / 1_000_000;
            String where = o.client() + " request #" + o.nth() + " on its connection, sent " + msAfterSigterm + " ms after SIGTERM";
            RawHttpConnection.Response r = o.response();
            if (r == null) {
                counts.merge(o.client() + " no answer", 1, Integer::sum);
                violations.add(where + ": no answer: " + o.error());
            } else if (r.status() >= 200 && r.status() < 300) {
                counts.merge("completed", 1, Integer::sum);
            } else if (r.status() == 503) {
                counts.merge("503", 1, Integer::sum);
                String v = cleanRefusalViolation(r);
                if (v != null) {
                    violations.add(where + ": " + v);
                }
            } else {
                violations.add(where + ": answer " + r.status() + " " + r.body());
            }
        }
        System.out.printf("[graceful] exit %s after %d ms; %d completed, %d got 503, %d fresh and %d keep-alive requests "
                        + "without an answer, %d connects refused before and %d after SIGTERM; log %s%n",
                exit.map(String::valueOf).orElse("none"), exitMillis, counts.getOrDefault("completed", 0),
                counts.getOrDefault("503", 0), counts.getOrDefault(Client.FRESH + " no answer", 0),
                counts.getOrDefault(Client.KEEP_ALIVE + " no answer", 0), refusedBefore.sum(), refusedAfter.sum(),
                demo.logFile());
        demo.grep(PHASE_TIMEOUT).forEach(m -> System.out.println("[graceful] NOTE: a shutdown phase ran into its timeout: " + m.group()));

        assertThat(exit).as("the process exited").isPresent();
        assertThat(violations).as("requests written on established connections around SIGTERM").isEmpty();
        assertThat(counts.getOrDefault("503", 0)).as("requests that arrived during the shutdown were refused with 503 "
                + "(the signal really landed under load)").isPositive();
        assertThat(demo.grep(LOOPS_NOT_DISPOSED)).as("event loops that could not be disposed, in %s", demo.logFile())
                .isEmpty();
        assertThat(exitMillis).as("exit within the configured shutdown phase timeout (%d s)", TIMEOUT_SECONDS)
                .isLessThan(TIMEOUT_SECONDS * 1000L);
        assertThat(demo.grep(REFUSAL_LOGGED_AS_ERROR)).as("refusals during shutdown logged as errors, in %s", demo.logFile())
                .isEmpty();
        // Nothing in this run (writes under load, then SIGTERM) is the service's fault: no ERROR line, no stack.
        assertThat(demo.grep(ERROR_OR_STACK)).as("ERROR lines or stack frames in %s", demo.logFile()).isEmpty();
        List<Matcher> reports = demo.grep(REPORT);
        assertThat(reports).as("the pump's shutdown report in %s", demo.logFile()).isNotEmpty();
        for (Matcher m : reports) {
            assertThat(m.group(1)).as("abandoned coroutines: %s", m.group()).isEqualTo("0");
        }

        try (DemoProcess again = DemoProcess.start("graceful-restarted", data)) {
            JsonNode snap = new Scenarios(again.http()).board("/api", board);
            Map<String, String> present = new HashMap<>();
            snap.path("notes").forEach(n -> present.put(n.path("id").asText(), n.path("text").asText()));
            assertThat(present).as("acknowledged notes after the restart").containsAllEntriesOf(acked);
            assertThat(snap.path("revision").asLong()).isEqualTo(present.size());
        }
    }

    /** Null if a 503 is a clean refusal: problem JSON, {@code Connection: close}, {@code Retry-After}. */
    static String cleanRefusalViolation(RawHttpConnection.Response r) {
        Http.Response asHttp = new Http.Response("POST (503)", 503, Map.of("Content-Type", List.of(r.contentType())),
                r.body().getBytes(StandardCharsets.UTF_8));
        String problem = BadInput.problemViolation(asHttp, Set.of(503));
        if (problem != null) {
            return "503 that is not a problem: " + problem;
        }
        if (!r.closesConnection()) {
            return "503 without Connection: close (headers " + r.headers() + ")";
        }
        if (r.retryAfterSeconds().filter(s -> s > 0).isEmpty()) {
            return "503 without a Retry-After of some seconds (headers " + r.headers() + ")";
        }
        return null;
    }

    /** The write load: each client loops until the service is gone. */
    record Writers(int port, String board, Map<String, String> acked, ConcurrentLinkedQueue<Outcome> outcomes,
                   AtomicLong sigtermAt, CountDownLatch exited, LongAdder refusedBefore, LongAdder refusedAfter) {

        void run(Client client, int writer) {
            String path = Scenarios.FACES.get(writer % 2) + "/boards/" + board + "/notes";
            RawHttpConnection connection = null;
            int nth = 0;
            try {
                for (int i = 0; exited.getCount() > 0; i++) {
                    if (connection == null) {
                        try {
                            connection = RawHttpConnection.open(port);
                            nth = 0;
                        } catch (ConnectException e) {
                            // Refused outright: nothing was sent. After SIGTERM the service is gone.
                            if (System.nanoTime() > sigtermAt.get()) {
                                refusedAfter.increment();
                                return;
                            }
                            refusedBefore.increment();
                            continue;
                        }
                    }
                    String text = "graceful w" + writer + " #" + i;
                    byte[] body = Http.json(Http.obj("text", text));
                    long sent = System.nanoTime();
                    nth++;
                    RawHttpConnection.Response r;
                    try {
                        r = connection.exchange("POST", path, body, client == Client.KEEP_ALIVE);
                    } catch (IOException e) {
                        outcomes.add(new Outcome(client, nth, sent, null, e.toString()));
                        connection.close();
                        connection = null;
                        continue;
                    }
                    outcomes.add(new Outcome(client, nth, sent, r, null));
                    if (client == Client.FRESH || r.closesConnection()) {
                        connection.close();
                        connection = null;
                    }
                    if (r.status() == 201) {
                        acked.put(Http.JSON.readTree(r.body()).path("id").asText(), text);
                    } else if (r.status() == 503) {
                        // As told: come back after Retry-After (1 s if the server did not say).
                        if (exited.await(r.retryAfterSeconds().orElse(1), TimeUnit.SECONDS)) {
                            return;
                        }
                    }
                }
            } catch (IOException e) {
                throw new AssertionError("201 with a body that is not JSON", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                if (connection != null) {
                    connection.close();
                }
            }
        }
    }
}
