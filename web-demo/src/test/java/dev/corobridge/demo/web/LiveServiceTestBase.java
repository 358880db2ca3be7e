package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import dev.corobridge.demo.TestData;

/**
 * The running service on a random port, spoken to over raw sockets ({@link RawHttp}) so a test can
 * send exactly the bytes a hostile or broken client sends. The subclasses share one Spring context
 * (same configuration), with the web package logging at DEBUG so that tests can see how a request
 * ended.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "logging.level.dev.corobridge.demo.web=DEBUG")
public abstract class LiveServiceTestBase {

    protected static final Path DATA = tempDir();
    protected static final JsonMapper JSON = JsonMapper.builder().build();
    /** Java signatures, class names and server paths: nothing a client should read in a problem. */
    protected static final String INTERNALS = "(?s).*(dev\\.corobridge|org\\.springframework|tools\\.jackson|reactor\\.|java\\.|kotlin\\."
            + "|public |Task<|Exception|" + java.util.regex.Pattern.quote(DATA.toString()) + ").*";
    protected static final List<String> FACES = List.of("/api", "/api/kt");

    private static final AtomicInteger CONTEXTS = new AtomicInteger();

    /**
     * A data directory under {@link #DATA} per Spring context: a subclass with configuration of its
     * own gets a context of its own, which the test context cache keeps running beside the others,
     * and a journal is held by one service at a time.
     */
    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        Path dir = DATA.resolve("context-" + CONTEXTS.incrementAndGet());
        r.add("demo.data-dir", dir::toString);
    }

    @LocalServerPort
    protected int port;

    /** A request: the request line, {@code Host}, the given header lines, then the body as given. */
    protected static byte[] request(String method, String path, List<String> headers, byte[] body) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        StringBuilder head = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n");
        for (String h : headers) {
            head.append(h).append("\r\n");
        }
        head.append("\r\n");
        b.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (body != null) {
            b.writeBytes(body);
        }
        return b.toByteArray();
    }

    /** A JSON request with a correct {@code Content-Length}. */
    protected static byte[] json(String method, String path, byte[] body) {
        return request(method, path, List.of("Content-Type: application/json", "Content-Length: " + body.length), body);
    }

    protected static byte[] json(String method, String path, String body) {
        return json(method, path, body.getBytes(StandardCharsets.UTF_8));
    }

    /** One request on a fresh connection. */
    protected RawHttp.Response exchange(byte[] request) throws IOException {
        try (RawHttp c = new RawHttp(port)) {
            return c.exchange(request);
        }
    }

    protected JsonNode ok(byte[] request, int status) throws IOException {
        RawHttp.Response r = exchange(request);
        assertThat(r.status()).as("status of %s", r).isEqualTo(status);
        return r.body().isEmpty() ? null : JSON.readTree(r.body());
    }

    /**
     * Asserts a problem JSON answer with this status whose detail shows no internals, whose title is
     * the status line's reason phrase, and whose instance, if any, is a path; returns the detail.
     */
    protected static String problem(RawHttp.Response r, int status) {
        assertThat(r.status()).as("status of %s", r).isEqualTo(status);
        assertThat(r.header("content-type")).as("content type of %s", r).startsWith("application/problem+json");
        JsonNode p = JSON.readTree(r.body());
        assertThat(p.path("status").asInt()).isEqualTo(status);
        assertThat(p.path("title").asString()).isNotBlank().as("title and status line of %s", r).isEqualTo(r.reason());
        if (p.has("instance")) { // the request's path; absent where the request's target could not be read
            assertThat(p.path("instance").isString() && !p.path("instance").asString().isEmpty()).as("instance of %s", r).isTrue();
        }
        String detail = p.path("detail").asString();
        assertThat(detail).as("detail of %s", r).isNotBlank().doesNotMatch(INTERNALS);
        return detail;
    }

    protected String createBoard(String face, String name) throws IOException {
        return ok(json("POST", face + "/boards", "{\"name\":" + JSON.writeValueAsString(name) + "}"), 201)
                .path("id").asString();
    }

    protected String addNote(String face, String board, String text) throws IOException {
        return ok(json("POST", face + "/boards/" + board + "/notes", "{\"text\":" + JSON.writeValueAsString(text) + "}"), 201)
                .path("id").asString();
    }

    /** Every board with its notes, and the journal's change count: what a bad request must not change. */
    protected String state() throws IOException {
        StringBuilder s = new StringBuilder();
        for (JsonNode b : ok(request("GET", "/api/boards", List.of(), null), 200)) {
            s.append(ok(request("GET", "/api/boards/" + b.path("id").asString(), List.of(), null), 200)).append('\n');
        }
        return s.append("changes ").append(ok(request("GET", "/api/live", List.of(), null), 200)
                .path("journal").path("changes").asLong()).toString();
    }

    private static Path tempDir() {
        return TestData.directory("live-service-test");
    }
}
