package dev.corobridge.demo.cluster;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import dev.corobridge.demo.NotesBoardApplication;

/**
 * One replica of the notes board in cluster mode: a Spring context of its own in this JVM (its own
 * pump, ring pool, Kafka clients, data directory and port), spoken to over HTTP. Closing it stops
 * the context (a graceful shutdown). Not thread-safe to start or close; requests from any thread.
 */
final class Replica implements AutoCloseable {

    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    final String id;
    private final ConfigurableApplicationContext context;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final int port;

    private Replica(String id, ConfigurableApplicationContext context) {
        this.id = id;
        this.context = context;
        this.port = ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    /** Starts replica {@code id} on {@code topic} at {@code bootstrap}, its data in {@code dataDir}. */
    static Replica start(String id, String bootstrap, String topic, Path dataDir, Map<String, String> extra) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("server.port", "0");
        p.put("demo.store", "kafka");
        p.put("demo.replica-id", id);
        p.put("demo.data-dir", dataDir.toString());
        p.put("demo.kafka.bootstrap-servers", bootstrap);
        p.put("demo.kafka.topic", topic);
        p.put("demo.kafka.partitions", "4");
        p.put("demo.kafka.snapshot-interval", "1s");
        p.put("corobridge.pump.name", "pump-" + id);
        p.put("corobridge.ring.name", "ring-" + id);
        p.put("spring.lifecycle.timeout-per-shutdown-phase", "10s");
        p.put("demo.shutdown.quiet-period", "100ms");
        p.putAll(extra);
        // As command-line arguments: they override application.properties (default properties do not).
        String[] args = p.entrySet().stream().map(e -> "--" + e.getKey() + "=" + e.getValue()).toArray(String[]::new);
        ConfigurableApplicationContext ctx = new SpringApplicationBuilder(NotesBoardApplication.class).run(args);
        return new Replica(id, ctx);
    }

    record Response(int status, Map<String, String> headers, String body) {

        JsonNode json() {
            return JSON.readTree(body);
        }

        String header(String name) {
            return headers.get(name.toLowerCase(java.util.Locale.ROOT));
        }
    }

    Response get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    Response post(String path, String json) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    /** A request with a JSON body, any method, and header name/value pairs. */
    Response send(String method, String path, String json, String... headers) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .method(method, HttpRequest.BodyPublishers.ofString(json));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return send(b);
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private Response send(HttpRequest.Builder b) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(b.timeout(REQUEST_TIMEOUT).build(), HttpResponse.BodyHandlers.ofString());
        Map<String, String> headers = new LinkedHashMap<>();
        r.headers().map().forEach((k, v) -> headers.put(k.toLowerCase(java.util.Locale.ROOT), String.join(",", v)));
        return new Response(r.statusCode(), headers, r.body());
    }

    /** Every board's snapshot by id (what must be identical on every replica). */
    Map<String, String> boards() throws IOException, InterruptedException {
        Map<String, String> out = new java.util.TreeMap<>();
        for (JsonNode b : get("/api/boards").json()) {
            String id = b.path("id").asString();
            out.put(id, get("/api/boards/" + id).body());
        }
        return out;
    }

    /** {@code /actuator/health} once its status is {@code status}, polled for at most {@code wait}. */
    JsonNode awaitHealth(String status, Duration wait) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        JsonNode last = null;
        while (System.nanoTime() < deadline) {
            last = get("/actuator/health").json();
            if (last.path("status").asString().equals(status)) {
                return last;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // polling pace
        }
        throw new AssertionError("health of replica " + id + " not " + status + " within " + wait + ": " + last);
    }

    /** {@code /api/live}'s cluster section. */
    JsonNode cluster() throws IOException, InterruptedException {
        return get("/api/live").json().path("cluster");
    }

    <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    @Override
    public void close() {
        context.close();
    }
}
