package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import dev.corobridge.bridge.Task;
import dev.corobridge.demo.board.BoardStore;
import dev.corobridge.pump.MessagePump;

/**
 * Every endpoint of both faces over real HTTP: the flows, the events, the hop traces, the long
 * poll's cancellation on disconnect, the group commit, and each kind of bad input.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@SuppressWarnings({"unchecked", "rawtypes"})
class NotesBoardApiTest {

    private static final Path DATA = tempDir();
    private static final Duration T = Duration.ofSeconds(30);

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry r) {
        r.add("demo.data-dir", DATA::toString);
        r.add("demo.long-poll-timeout", () -> "2s");
    }

    @LocalServerPort
    int port;

    @Autowired
    BoardStore store;

    @Autowired
    MessagePump pump;

    WebTestClient http;

    @BeforeEach
    void client() {
        http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port).responseTimeout(T).build();
    }

    // ------------------------------------------------------------------ flows

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void fullBoardAndNoteFlow(String face) {
        Map<String, Object> board = http.post().uri(face + "/boards").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"Groceries\"}").exchange()
                .expectStatus().isCreated()
                .expectHeader().value("Location", l -> assertThat(l).startsWith(face + "/boards/b"))
                .expectBody(Map.class).returnResult().getResponseBody();
        String b = (String) board.get("id");
        assertThat(board.get("revision")).isEqualTo(0);

        Map<String, Object> note = http.post().uri(face + "/boards/{b}/notes", b).contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"text\":\"milk\"}").exchange()
                .expectStatus().isCreated()
                .expectHeader().value("Hop-Trace", NotesBoardApiTest::assertChangeTrace)
                .expectBody(Map.class).returnResult().getResponseBody();
        String n = (String) note.get("id");
        assertThat(note).containsEntry("text", "milk").containsEntry("version", 1).containsEntry("boardId", b);

        http.get().uri(face + "/boards/{b}/notes/{n}", b, n).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.text").isEqualTo("milk");
        http.put().uri(face + "/boards/{b}/notes/{n}", b, n).contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"text\":\"oat milk\",\"expectedVersion\":1}").exchange()
                .expectStatus().isOk()
                .expectBody().jsonPath("$.version").isEqualTo(2).jsonPath("$.text").isEqualTo("oat milk");
        // The same edit again is stale now: 409 and nothing changes.
        problem(http.put().uri(face + "/boards/{b}/notes/{n}", b, n).contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"text\":\"lost\",\"expectedVersion\":1}").exchange(), 409);
        http.get().uri(face + "/boards/{b}", b).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.revision").isEqualTo(2).jsonPath("$.notes[0].text").isEqualTo("oat milk");

        problem(http.delete().uri(face + "/boards/{b}/notes/{n}?expectedVersion=1", b, n).exchange(), 409);
        http.delete().uri(face + "/boards/{b}/notes/{n}?expectedVersion=2", b, n).exchange().expectStatus().isNoContent();
        problem(http.delete().uri(face + "/boards/{b}/notes/{n}", b, n).exchange(), 404);

        http.get().uri(face + "/boards").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$[?(@.id == '" + b + "')].revision").isEqualTo(3)
                .jsonPath("$[?(@.id == '" + b + "')].notes").isEqualTo(0);
    }

    /** The Kotlin snapshot (a coRouter route) answers exactly as the Java one, with its pump step in Hop-Trace. */
    @Test
    void theKotlinSnapshotAnswersAsTheJavaOne() {
        String b = createBoard("/api/kt", "functional");
        addNote("/api/kt", b, "milk");
        String java = http.get().uri("/api/boards/{b}", b).exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
        String kotlin = http.get().uri("/api/kt/boards/{b}", b).exchange().expectStatus().isOk()
                .expectHeader().contentType(MediaType.APPLICATION_JSON)
                .expectHeader().value("Hop-Trace", t -> {
                    List<String> steps = List.of(t.split(" > "));
                    assertThat(steps).hasSize(2);
                    assertThat(steps.get(1)).startsWith("corobridge-pump@corobridge-pump").endsWith(":snapshot");
                })
                .expectBody(String.class).returnResult().getResponseBody();
        assertThat(kotlin).isEqualTo(java);
        problem(http.get().uri("/api/kt/boards/b999999").exchange(), 404);
        problem(http.get().uri("/api/kt/boards/x1").exchange(), 400);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void statsRunOnTheCpuDispatcherAndComeBackToThePump(String face) {
        String b = createBoard(face, "words");
        addNote(face, b, "the cat and the hat");
        addNote(face, b, "The end");
        http.get().uri(face + "/boards/{b}/stats", b).exchange().expectStatus().isOk()
                .expectHeader().value("Hop-Trace", t -> {
                    List<String> steps = List.of(t.split(" > "));
                    assertThat(steps).hasSize(4);
                    assertThat(steps.get(1)).startsWith("corobridge-pump@corobridge-pump");
                    assertThat(steps.get(2)).startsWith("cpu@").doesNotContain("corobridge-pump");
                    assertThat(steps.get(3)).startsWith("corobridge-pump@corobridge-pump");
                })
                .expectBody()
                .jsonPath("$.words").isEqualTo(7)
                .jsonPath("$.current").isEqualTo(true)
                .jsonPath("$.topWords[0].word").isEqualTo("the")
                .jsonPath("$.topWords[0].count").isEqualTo(3);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void eventsArriveInRevisionOrderAfterTheSnapshot(String face) {
        String b = createBoard(face, "live");
        addNote(face, b, "before");
        Flux<ServerSentEvent<Map<String, Object>>> events = http.get().uri(face + "/boards/{b}/events", b)
                .accept(MediaType.TEXT_EVENT_STREAM).exchange().expectStatus().isOk()
                .returnResult(new ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>>() { })
                .getResponseBody();
        StepVerifier.create(events.take(1 + 20))
                .assertNext(e -> {
                    assertThat(e.event()).isEqualTo("snapshot");
                    assertThat(e.data()).containsEntry("revision", 1);
                })
                .then(() -> {
                    for (int i = 0; i < 20; i++) {
                        addNote(i % 2 == 0 ? "/api" : "/api/kt", b, "note " + i);
                    }
                })
                .thenConsumeWhile(e -> true, new Predicate<ServerSentEvent<Map<String, Object>>>() {
                    long expected = 2;

                    @Override
                    public boolean test(ServerSentEvent<Map<String, Object>> e) {
                        assertThat(e.event()).isEqualTo("note-added");
                        assertThat(e.id()).isEqualTo(Long.toString(expected));
                        assertThat(((Number) e.data().get("revision")).longValue()).isEqualTo(expected++);
                        return true;
                    }
                }::test)
                .expectComplete()
                .verify(T);
        awaitCounts(0, 0); // the stream's listener left when the client did
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void theBoardListStreamStartsWithTheListAndFollowsEveryChange(String face) {
        String existing = createBoard(face, "listed before");
        Flux<ServerSentEvent<Object>> events = http.get().uri(face + "/boards/events")
                .accept(MediaType.TEXT_EVENT_STREAM).exchange().expectStatus().isOk()
                .returnResult(new ParameterizedTypeReference<ServerSentEvent<Object>>() { })
                .getResponseBody();
        String name = "listed after " + face;
        java.util.concurrent.atomic.AtomicReference<Object> created = new java.util.concurrent.atomic.AtomicReference<>();
        StepVerifier.create(events.take(3))
                .assertNext(e -> {
                    assertThat(e.event()).isEqualTo("boards");
                    assertThat((List<Map<String, Object>>) e.data()).anySatisfy(b -> assertThat(b).containsEntry("id", existing));
                })
                .then(() -> addNote(face, createBoard(face.equals("/api") ? "/api/kt" : "/api", name), "one"))
                .assertNext(e -> {
                    assertThat(e.event()).isEqualTo("board");
                    assertThat((Map<String, Object>) e.data()).containsEntry("name", name).containsEntry("notes", 0)
                            .containsEntry("revision", 0);
                    created.set(((Map<String, Object>) e.data()).get("id"));
                })
                .assertNext(e -> {
                    assertThat(e.event()).isEqualTo("board");
                    assertThat((Map<String, Object>) e.data()).containsEntry("id", created.get())
                            .containsEntry("notes", 1).containsEntry("revision", 1);
                })
                .expectComplete()
                .verify(T);
        awaitCounts(0, 0); // the list's listener left when the client did
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void longPollAnswersAtTheNextChangeOrAtTheTimeout(String face) {
        String b = createBoard(face, "poll");
        http.get().uri(face + "/boards/{b}/changes?after=0", b).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.revision").isEqualTo(0); // timed out (2 s): the board as it is
        addNote(face, b, "x");
        http.get().uri(face + "/boards/{b}/changes?after=0", b).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.revision").isEqualTo(1); // already past: at once
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aLongPollFromARevisionTheBoardHasNotReachedIsAConflict(String face) {
        String b = createBoard(face, "future");
        addNote(face, b, "one");
        for (String after : List.of("2", "5", "1000000000", Long.toString(Long.MAX_VALUE))) {
            problem(http.get().uri(face + "/boards/{b}/changes?after=" + after, b).exchange(), 409)
                    .jsonPath("$.detail").value(d -> assertThat((String) d)
                            .contains("revision 1").contains("'after' (" + after + ")"));
        }
        awaitCounts(0, 0); // no waiter was left behind
        // At the board's own revision the poll waits as before (2 s here), then answers with the board.
        http.get().uri(face + "/boards/{b}/changes?after=1", b).exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.revision").isEqualTo(1);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aClientThatDisconnectsCancelsItsRequest(String face) {
        String b = createBoard(face, "gone");
        awaitCounts(0, 0);
        WebClient client = WebClient.create("http://localhost:" + port);
        // A long poll with a long timeout would hold a waiter on the pump for its whole duration.
        Disposable request = client.get().uri(face + "/boards/{b}/changes?after=0", b).retrieve()
                .bodyToMono(String.class).subscribe();
        awaitCounts(0, 1);
        request.dispose(); // the connection closes: WebFlux cancels the Task / the coroutine
        awaitCounts(0, 0); // and the waiter is withdrawn at once, not at the next change
    }

    @Test
    void sixtyFourConcurrentWritersShareFsyncs() {
        String b = createBoard("/api", "group commit");
        Map<String, Object> before = live();
        long changes0 = journalLong(before, "changes");
        long fsyncs0 = journalLong(before, "fsyncs");
        WebClient client = WebClient.create("http://localhost:" + port);
        Flux.range(0, 64 * 8)
                .flatMap(i -> client.post().uri("/api/boards/{b}/notes", b).contentType(MediaType.APPLICATION_JSON)
                        .bodyValue("{\"text\":\"note " + i + "\"}").retrieve().toBodilessEntity(), 64)
                .blockLast(Duration.ofSeconds(120));
        Map<String, Object> after = live();
        long changes = journalLong(after, "changes") - changes0;
        long fsyncs = journalLong(after, "fsyncs") - fsyncs0;
        assertThat(changes).isEqualTo(64 * 8);
        // Every acknowledged change was durable, and the commits were shared (not one per change).
        assertThat(fsyncs).isPositive().isLessThan(changes);
        http.get().uri("/api/boards/{b}", b).exchange().expectBody().jsonPath("$.revision").isEqualTo(64 * 8);
    }

    @Test
    void pingHasNoHopAndLiveReportsTheTransport() {
        http.get().uri("/api/ping").exchange().expectStatus().isOk()
                .expectHeader().value("Hop-Trace", t -> assertThat(t).doesNotContain(" > "))
                .expectBody().jsonPath("$.ok").isEqualTo(true);
        Map<String, Object> live = live();
        assertThat(live.get("transport")).isIn("io_uring", "nio");
        assertThat((Map<String, Object>) live.get("pump")).containsKeys("queueDepth", "wakeupsPerDispatch");
        assertThat((Map<String, Object>) live.get("journal")).containsKeys("fsyncsPerChange", "changes", "total");
        http.get().uri("/actuator/health/readiness").exchange().expectStatus().isOk();
        http.get().uri("/actuator/prometheus").exchange().expectStatus().isOk()
                .expectBody(String.class).value(s -> assertThat(s).contains("corobridge"));
        http.get().uri("/").exchange().expectStatus().isOk()
                .expectBody(String.class).value(s -> assertThat(s).contains("id=\"notes\""));
    }

    @Test
    void boardStateIsOnlyReachableOnThePump() {
        assertThatThrownBy(() -> store.list()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("corobridge-pump");
        assertThatThrownBy(() -> store.prepareCreateBoard("sneaky")).isInstanceOf(IllegalStateException.class);
        assertThat(Task.start(pump, () -> store.list()).toCompletableFuture().join()).isNotNull();
    }

    // ------------------------------------------------------------------ bad input

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void badInputIsAProblemAndChangesNothing(String face) {
        String b = createBoard(face, "guarded");
        String n = addNote(face, b, "keep me");
        String snapshot = snapshot(face, b);
        String json = MediaType.APPLICATION_JSON_VALUE;

        problem(post(face + "/boards/" + b + "/notes", json, "{\"text\":"), 400);          // malformed
        problem(post(face + "/boards/" + b + "/notes", json, "{\"text\":5}"), 400);        // wrong type
        problem(post(face + "/boards/" + b + "/notes", json, "{\"text\":\"  \"}"), 400);   // blank
        problem(post(face + "/boards/" + b + "/notes", json, "{\"txt\":\"typo\"}"), 400);  // unknown field
        problem(post(face + "/boards/" + b + "/notes", json, "[\"text\"]"), 400);          // not an object
        problem(post(face + "/boards/" + b + "/notes", json, "{\"text\":\"\\ud800\"}"), 400); // lone surrogate
        problem(post(face + "/boards/" + b + "/notes", json, "{\"text\":\"a\\u0000b\"}"), 400); // NUL
        problem(post(face + "/boards/" + b + "/notes", json, "{\"text\":\"" + "x".repeat(2001) + "\"}"), 400);
        problem(post(face + "/boards/" + b + "/notes", json, ""), 400);                    // no body
        problem(post(face + "/boards/" + b + "/notes", "text/plain", "{\"text\":\"x\"}"), 415);
        problem(post(face + "/boards/" + b + "/notes", json, "{\"text\":\"" + "x".repeat(70_000) + "\"}"), 413);
        problem(post(face + "/boards/b999/notes", json, "{\"text\":\"x\"}"), 404);
        problem(post(face + "/boards/..%2F..%2Fetc%2Fpasswd/notes", json, "{\"text\":\"x\"}"), 400);
        problem(http.put().uri(face + "/boards/" + b + "/notes/" + n).contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"text\":\"x\",\"expectedVersion\":\"1\"}").exchange(), 400);
        problem(http.put().uri(face + "/boards/" + b + "/notes/" + n).contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"text\":\"x\"}").exchange(), 400);
        problem(http.put().uri(face + "/boards/" + b + "/notes/" + n).contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"text\":\"x\",\"expectedVersion\":9}").exchange(), 409);
        problem(http.delete().uri(face + "/boards/" + b + "/notes/" + n + "?expectedVersion=-3").exchange(), 400);
        // Versions start at 1: 0 is refused as in an edit's body, not compared (a 409 could never be avoided).
        problem(http.put().uri(face + "/boards/" + b + "/notes/" + n).contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"text\":\"x\",\"expectedVersion\":0}").exchange(), 400);
        problem(http.delete().uri(face + "/boards/" + b + "/notes/" + n + "?expectedVersion=0").exchange(), 400);
        problem(http.delete().uri(face + "/boards/" + b + "/notes/n999999").exchange(), 404);
        problem(http.get().uri(face + "/boards/" + b + "/changes?after=soon").exchange(), 400);
        problem(http.get().uri(face + "/boards/b77/events").exchange(), 404);
        problem(http.patch().uri(face + "/boards/" + b).exchange(), 405);
        problem(http.get().uri(face + "/boards/" + b).accept(MediaType.TEXT_HTML).exchange(), 406);
        problem(http.get().uri(face + "/no/such/thing").exchange(), 404);

        assertThat(snapshot(face, b)).isEqualTo(snapshot);
    }

    // ------------------------------------------------------------------ helpers

    private static void assertChangeTrace(String trace) {
        List<String> steps = List.of(trace.split(" > "));
        assertThat(steps).hasSize(4);
        assertThat(steps.get(0)).startsWith("http@").endsWith(":request");
        assertThat(steps.get(1)).startsWith("corobridge-pump@corobridge-pump").endsWith(":prepare");
        assertThat(steps.get(2)).startsWith("corobridge-ring-").contains("@corobridge-ring-").endsWith(":journal");
        assertThat(steps.get(3)).startsWith("corobridge-pump@corobridge-pump").endsWith(":apply");
    }

    private WebTestClient.ResponseSpec post(String uri, String contentType, String body) {
        return http.post().uri(uri).header("Content-Type", contentType).bodyValue(body).exchange();
    }

    private static WebTestClient.BodyContentSpec problem(WebTestClient.ResponseSpec response, int status) {
        return response.expectStatus().isEqualTo(status)
                .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.status").isEqualTo(status)
                .jsonPath("$.title").isNotEmpty()
                .jsonPath("$.type").isNotEmpty()
                .jsonPath("$.detail").isNotEmpty();
    }

    private String createBoard(String face, String name) {
        return (String) http.post().uri(face + "/boards").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", name)).exchange().expectStatus().isCreated()
                .expectBody(Map.class).returnResult().getResponseBody().get("id");
    }

    private String addNote(String face, String board, String text) {
        return (String) http.post().uri(face + "/boards/{b}/notes", board).contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("text", text)).exchange().expectStatus().isCreated()
                .expectBody(Map.class).returnResult().getResponseBody().get("id");
    }

    private String snapshot(String face, String board) {
        return http.get().uri(face + "/boards/{b}", board).exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody();
    }

    private Map<String, Object> live() {
        return http.get().uri("/api/live").exchange().expectStatus().isOk()
                .expectBody(Map.class).returnResult().getResponseBody();
    }

    private static long journalLong(Map<String, Object> live, String key) {
        return ((Number) ((Map<String, Object>) live.get("journal")).get(key)).longValue();
    }

    /** Waits (bounded) until the pump reports these subscriber and waiter counts. */
    private void awaitCounts(int subscribers, int waiters) {
        long deadline = System.nanoTime() + T.toNanos();
        Map<String, Object> pumpLive;
        do {
            pumpLive = (Map<String, Object>) live().get("pump");
            if (((Number) pumpLive.get("subscribers")).intValue() == subscribers
                    && ((Number) pumpLive.get("waiters")).intValue() == waiters) {
                return;
            }
            Thread.onSpinWait();
        } while (System.nanoTime() < deadline);
        assertThat(pumpLive).containsEntry("subscribers", subscribers).containsEntry("waiters", waiters);
    }

    private static Path tempDir() {
        return TestData.directory("notes-board-test");
    }
}
