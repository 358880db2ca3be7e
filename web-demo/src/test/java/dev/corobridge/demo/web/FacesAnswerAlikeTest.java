package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;

/**
 * The Kotlin face answers every request exactly as the Java face does: the same status, the same
 * headers that carry meaning (Content-Type, Allow and Accept as sets, Accept-Encoding, Connection,
 * Location),
 * the same body (problem JSON included), the same set of header names and the same steps in
 * {@code Hop-Trace}, for reads, writes, wrong methods, wrong media types, bad ids, bad query
 * parameters and bad bodies; and what a route does not accept (OPTIONS, a foreign method, an
 * {@code Accept} or {@code Content-Type} it does not take, HEAD) is asked of every path. Both faces
 * are functional routes now (Java {@code RouterFunction}s whose handlers build {@code Task}s; Kotlin
 * {@code coRouter {}} routes with {@code suspend} handlers), and both once were annotated
 * controllers: this test passed with each face annotated and the other functional, so that Spring's
 * answers for annotated handlers (405, 406, 415, OPTIONS, HEAD) are the ones a client of either face
 * sees is what it pins down.
 */
class FacesAnswerAlikeTest extends LiveServiceTestBase {

    private static final String JSON_CT = "Content-Type: application/json";
    private static final List<String> COMPARED = List.of("content-type", "allow", "accept", "accept-encoding",
            "accept-patch", "connection", "retry-after", "location", "content-length", "transfer-encoding", "cache-control");

    /** One request, written for the face it is sent to ({@code {F}} stands for the face's prefix). */
    record Call(String name, String method, String path, List<String> headers, byte[] body) {
    }

    private static Call call(String name, String method, String path, String body, String... headers) {
        return new Call(name, method, path, List.of(headers), body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    private static Call bytes(String name, String method, String path, byte[] body, String... headers) {
        return new Call(name, method, path, List.of(headers), body);
    }

    /** What one answer means, with the face's own prefix and the ids it made written as placeholders. */
    private static String meaning(String face, RawHttp.Response r) {
        Map<String, String> h = new LinkedHashMap<>();
        for (String name : COMPARED) {
            if (r.header(name) != null) {
                h.put(name, normalise(face, r.header(name)));
            }
        }
        setOrder(h);
        h.put("names", names(r.headers().keySet()));
        String trace = r.header(HopTraces.HEADER) == null ? "" : List.of(r.header(HopTraces.HEADER).split(" > ")).stream()
                .map(step -> step.replaceAll("@[^:]*", "")).collect(Collectors.joining(" > "));
        // A length depends on the prefix in "instance" and on new ids: compare its presence only.
        if (h.containsKey("content-length")) {
            h.put("content-length", "present");
        }
        return r.status() + " " + h + "\ntrace: " + trace + "\n" + normalise(face, r.body());
    }

    /**
     * {@code Allow} and {@code Accept} list sets (RFC 9110): their order carries no meaning, and the
     * Java face's varies from one start of the service to the next (Spring collects them from a hash
     * map whose keys hash enum constants by identity).
     */
    private static void setOrder(Map<String, String> headers) {
        for (String name : List.of("allow", "accept")) {
            headers.computeIfPresent(name, (k, v) -> List.of(v.split(",")).stream().map(String::trim).sorted()
                    .collect(Collectors.joining(",")));
        }
    }

    /** Which headers an answer has (the date aside): a header only one face sends is a difference too. */
    private static String names(java.util.Collection<String> names) {
        return names.stream().map(k -> k.toLowerCase(Locale.ROOT)).filter(k -> !k.equals("date") && !k.equals(":status"))
                .sorted().collect(Collectors.joining(","));
    }

    private static String normalise(String face, String s) {
        String t = face.equals("/api") ? s : s.replace(face + "/", "/api/").replace("\"" + face + "\"", "\"/api\"");
        return t.replaceAll("\"id\":\"([bn])[0-9]+\"", "\"id\":\"$1#\"").replaceAll("/([bn])[0-9]+(?=[/\"?]|$)", "/$1#")
                .replaceAll("\"(createdAt|updatedAt|at)\":\"[^\"]*\"", "\"$1\":\"#\"");
    }

    private RawHttp.Response send(String face, Call c) throws IOException {
        List<String> headers = new ArrayList<>(c.headers());
        headers.add("Connection: close");
        byte[] body = c.body();
        if (body != null && headers.stream().noneMatch(h -> h.toLowerCase(Locale.ROOT).startsWith("transfer-encoding"))) {
            headers.add("Content-Length: " + body.length);
        }
        return exchange(request(c.method(), c.path().replace("{F}", face), headers, body));
    }

    @Test
    void everyAnswerOfTheKotlinFaceIsTheJavaFacesAnswer() throws Exception {
        String b = createBoard("/api", "alike");
        String n = addNote("/api", b, "first");
        String bPath = "{F}/boards/" + b;
        String nPath = bPath + "/notes/" + n;
        List<Call> calls = List.of(
                // reads
                call("list", "GET", "{F}/boards", null),
                call("snapshot", "GET", bPath, null),
                call("snapshot, Accept JSON", "GET", bPath, null, "Accept: application/json"),
                call("snapshot, Accept any", "GET", bPath, null, "Accept: */*"),
                call("snapshot, Accept list with q", "GET", bPath, null, "Accept: text/html;q=0.9, application/*;q=0.8"),
                call("snapshot, Accept XML", "GET", bPath, null, "Accept: application/xml"),
                call("snapshot, Accept SSE", "GET", bPath, null, "Accept: text/event-stream"),
                call("snapshot, Accept garbage", "GET", bPath, null, "Accept: garbage"),
                call("snapshot of an unknown board", "GET", "{F}/boards/b999999", null),
                call("snapshot of an unknown board, Accept XML", "GET", "{F}/boards/b999999", null, "Accept: application/xml"),
                call("snapshot of a bad id", "GET", "{F}/boards/x1", null),
                call("snapshot of b0", "GET", "{F}/boards/b0", null),
                call("snapshot of a traversal id", "GET", "{F}/boards/..%2F..%2Fetc%2Fpasswd", null),
                call("snapshot of an odd unicode id", "GET", "{F}/boards/%E2%80%AEb1", null),
                call("snapshot of an id with NUL", "GET", "{F}/boards/b1%00", null),
                call("snapshot with a trailing slash", "GET", bPath + "/", null),
                call("list with a trailing slash", "GET", "{F}/boards/", null),
                call("note", "GET", nPath, null),
                call("unknown note", "GET", bPath + "/notes/n999999", null),
                call("bad note id", "GET", bPath + "/notes/x", null),
                call("notes collection GET", "GET", bPath + "/notes", null),
                call("stats", "GET", bPath + "/stats", null),
                call("stats of an unknown board", "GET", "{F}/boards/b999999/stats", null),
                call("stats, Accept XML", "GET", bPath + "/stats", null, "Accept: application/xml"),
                call("changes after 0", "GET", bPath + "/changes?after=0", null),
                call("changes after a revision not reached", "GET", bPath + "/changes?after=5", null),
                call("changes after -1", "GET", bPath + "/changes?after=-1", null),
                call("changes after soon", "GET", bPath + "/changes?after=soon", null),
                call("changes after twice", "GET", bPath + "/changes?after=0&after=1", null),
                call("changes after empty", "GET", bPath + "/changes?after=", null),
                call("changes of an unknown board", "GET", "{F}/boards/b999999/changes", null),
                // a stream's head (status and headers: its events are the Scenarios' and NotesBoardApiTest's)
                call("events of a board", "GET", bPath + "/events", null),
                call("events of a board, Accept SSE", "GET", bPath + "/events", null, "Accept: text/event-stream"),
                call("board list events", "GET", "{F}/boards/events", null),
                call("board list events, Accept SSE or JSON", "GET", "{F}/boards/events", null,
                        "Accept: application/json, text/event-stream"),
                call("events of a bad id", "GET", "{F}/boards/x/events", null),
                call("events of an unknown board", "GET", "{F}/boards/b999999/events", null),
                call("events of a board, Accept JSON", "GET", bPath + "/events", null, "Accept: application/json"),
                call("board list events, Accept JSON", "GET", "{F}/boards/events", null, "Accept: application/json"),
                call("board list events, Accept XML", "GET", "{F}/boards/events", null, "Accept: application/xml"),
                call("unknown route under the face", "GET", "{F}/boards/" + b + "/x/y", null),
                call("unknown route beside boards", "GET", "{F}/nope", null),
                // methods
                call("PATCH boards", "PATCH", "{F}/boards", "{\"name\":\"x\"}", JSON_CT),
                call("DELETE boards", "DELETE", "{F}/boards", null),
                call("PUT a board", "PUT", bPath, "{\"name\":\"x\"}", JSON_CT),
                call("DELETE a board", "DELETE", bPath, null),
                call("POST stats", "POST", bPath + "/stats", "{}", JSON_CT),
                call("POST a note", "POST", nPath, "{}", JSON_CT),
                call("PUT events", "PUT", bPath + "/events", "{}", JSON_CT),
                call("POST board list events", "POST", "{F}/boards/events", "{}", JSON_CT),
                call("OPTIONS boards", "OPTIONS", "{F}/boards", null),
                call("OPTIONS a board", "OPTIONS", bPath, null),
                call("OPTIONS a note", "OPTIONS", nPath, null),
                call("OPTIONS events", "OPTIONS", "{F}/boards/events", null),
                // create board: media types and bodies
                call("create, text/plain", "POST", "{F}/boards", "{\"name\":\"x\"}", "Content-Type: text/plain"),
                call("create, no content type", "POST", "{F}/boards", "{\"name\":\"x\"}"),
                call("create, content type garbage", "POST", "{F}/boards", "{\"name\":\"x\"}", "Content-Type: garbage"),
                call("create, merge-patch+json", "POST", "{F}/boards", "{\"name\":\"x\"}", "Content-Type: application/merge-patch+json"),
                call("create, Accept XML", "POST", "{F}/boards", "{\"name\":\"x\"}", JSON_CT, "Accept: application/xml"),
                call("create, text/plain and Accept XML", "POST", "{F}/boards", "{\"name\":\"x\"}", "Content-Type: text/plain",
                        "Accept: application/xml"),
                call("create, Content-Length 0", "POST", "{F}/boards", "", JSON_CT),
                call("create, no body", "POST", "{F}/boards", null, JSON_CT),
                call("create, truncated JSON", "POST", "{F}/boards", "{\"name\": \"abc", JSON_CT),
                call("create, JSON null", "POST", "{F}/boards", "null", JSON_CT),
                call("create, JSON array", "POST", "{F}/boards", "[]", JSON_CT),
                call("create, two JSON values", "POST", "{F}/boards", "{\"name\":\"a\"} {\"name\":\"b\"}", JSON_CT),
                call("create, duplicate key", "POST", "{F}/boards", "{\"name\":\"a\",\"name\":\"b\"}", JSON_CT),
                call("create, extra field", "POST", "{F}/boards", "{\"name\":\"a\",\"admin\":true}", JSON_CT),
                call("create, name a number", "POST", "{F}/boards", "{\"name\":5}", JSON_CT),
                call("create, 1e999999999", "POST", "{F}/boards", "{\"name\": 1e999999999}", JSON_CT),
                call("create, deep nesting", "POST", "{F}/boards", "[".repeat(5000) + "]".repeat(5000), JSON_CT),
                call("create, gzip coding", "POST", "{F}/boards", "{\"name\":\"x\"}", JSON_CT, "Content-Encoding: gzip"),
                call("create, Transfer-Encoding xchunked", "POST", "{F}/boards", "{\"name\":\"x\"}", JSON_CT,
                        "Transfer-Encoding: xchunked"),
                call("create, two content types", "POST", "{F}/boards", "{\"name\":\"x\"}", JSON_CT, "Content-Type: text/plain"),
                bytes("create, overlong UTF-8", "POST", "{F}/boards",
                        new byte[] {'{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', (byte) 0xC0, (byte) 0xAF, '"', '}'}, JSON_CT),
                call("create, 100 KB", "POST", "{F}/boards", "{\"name\":\"" + "x".repeat(100 * 1024) + "\"}", JSON_CT),
                // notes: errors
                call("add to an unknown board", "POST", "{F}/boards/b999999/notes", "{\"text\":\"x\"}", JSON_CT),
                call("add to a bad id", "POST", "{F}/boards/x/notes", "{\"text\":\"x\"}", JSON_CT),
                call("add, bad id and text/plain", "POST", "{F}/boards/x/notes", "x", "Content-Type: text/plain"),
                call("add, empty text", "POST", bPath + "/notes", "{\"text\":\"\"}", JSON_CT),
                call("add, no body", "POST", bPath + "/notes", null, JSON_CT),
                call("add, bad id and no body", "POST", "{F}/boards/x/notes", null, JSON_CT),
                call("add, bad id and bad JSON", "POST", "{F}/boards/x/notes", "{", JSON_CT),
                call("edit, stale version", "PUT", nPath, "{\"text\":\"x\",\"expectedVersion\":7}", JSON_CT),
                call("edit, no version", "PUT", nPath, "{\"text\":\"x\"}", JSON_CT),
                call("edit, unknown note", "PUT", bPath + "/notes/n999999", "{\"text\":\"x\",\"expectedVersion\":1}", JSON_CT),
                call("edit, no content type", "PUT", nPath, "{\"text\":\"x\",\"expectedVersion\":1}"),
                call("edit, no body", "PUT", nPath, null, JSON_CT),
                call("delete, version abc", "DELETE", nPath + "?expectedVersion=abc", null),
                call("delete, version twice", "DELETE", nPath + "?expectedVersion=1&expectedVersion=2", null),
                call("delete, stale version", "DELETE", nPath + "?expectedVersion=9", null),
                call("delete, unknown note", "DELETE", bPath + "/notes/n999999", null),
                call("delete, Accept XML", "DELETE", bPath + "/notes/n999999", null, "Accept: application/xml"),
                // writes that succeed (ids masked)
                call("create", "POST", "{F}/boards", "{\"name\":\"made\"}", JSON_CT),
                call("create, charset", "POST", "{F}/boards", "{\"name\":\"made\"}", "Content-Type: application/json;charset=UTF-8"),
                call("create, chunked", "POST", "{F}/boards", "d\r\n{\"name\":\"ch\"}\r\n0\r\n\r\n", JSON_CT,
                        "Transfer-Encoding: chunked"),
                call("add", "POST", bPath + "/notes", "{\"text\":\"more\"}", JSON_CT));
        SoftAssertions soft = new SoftAssertions();
        for (Call c : concat(calls, refusals(b, n))) {
            String java = meaning("/api", send("/api", c));
            String kotlin = meaning("/api/kt", send("/api/kt", c));
            soft.assertThat(kotlin).as(c.name() + " [" + c.method() + " " + c.path() + "]").isEqualTo(java);
        }
        // A note's edit and delete, on a note of each face's own (the versions must line up).
        Map<String, String> answers = new LinkedHashMap<>();
        for (String face : FACES) {
            String note = addNote(face, b, "to edit");
            Call edit = call("edit", "PUT", "{F}/boards/" + b + "/notes/" + note, "{\"text\":\"edited\",\"expectedVersion\":1}", JSON_CT);
            Call delete = call("delete", "DELETE", "{F}/boards/" + b + "/notes/" + note + "?expectedVersion=2", null);
            answers.put(face, meaning(face, send(face, edit)) + "\n" + meaning(face, send(face, delete)));
        }
        soft.assertThat(answers.get("/api/kt")).as("edit and delete").isEqualTo(answers.get("/api"));
        soft.assertThat(answers.get("/api")).as("edit and delete").startsWith("200 ").contains("\n204 ");
        // HEAD: the GET's status and headers, no body.
        for (String path : List.of(bPath, "{F}/boards", "{F}/boards/b999999", "{F}/boards/x1", bPath + "/stats", nPath,
                bPath + "/notes/n999999", bPath + "/notes", bPath + "/changes", bPath + "/changes?after=x",
                "{F}/boards/b999999/stats", "{F}/boards/" + b + "/x/y")) {
            soft.assertThat(head("/api/kt", path)).as("HEAD " + path).isEqualTo(head("/api", path));
        }
        soft.assertAll();
    }

    /**
     * What a route does not accept, asked of every path of the face: OPTIONS, a method no path
     * declares, media types it does not write, and, where it reads a body, media types it does not
     * read (alone, and with an {@code Accept} it does not write either: which refusal comes first).
     */
    private static List<Call> refusals(String b, String n) {
        String bPath = "{F}/boards/" + b;
        String nPath = bPath + "/notes/" + n;
        List<Call> calls = new ArrayList<>();
        for (String path : List.of("{F}/boards", "{F}/boards/events", bPath, bPath + "/notes", nPath, bPath + "/events",
                bPath + "/stats", bPath + "/changes")) {
            calls.add(call("OPTIONS", "OPTIONS", path, null));
            calls.add(call("OPTIONS, Accept XML", "OPTIONS", path, null, "Accept: application/xml"));
            calls.add(call("PATCH", "PATCH", path, "{}", JSON_CT));
            calls.add(call("PATCH, text/plain", "PATCH", path, "x", "Content-Type: text/plain"));
            calls.add(call("GET, Accept XML", "GET", path, null, "Accept: application/xml"));
            calls.add(call("GET, Accept garbage", "GET", path, null, "Accept: garbage"));
            calls.add(call("GET, Accept JSON refused", "GET", path, null, "Accept: application/json;q=0, text/html"));
            calls.add(call("DELETE, Accept XML", "DELETE", path, null, "Accept: application/xml"));
        }
        for (String[] write : List.of(new String[] {"POST", "{F}/boards", "{\"name\":\"x\"}"},
                new String[] {"POST", bPath + "/notes", "{\"text\":\"x\"}"},
                new String[] {"PUT", nPath, "{\"text\":\"x\",\"expectedVersion\":99}"})) {
            String method = write[0];
            String path = write[1];
            String body = write[2];
            calls.add(call("text/plain", method, path, body, "Content-Type: text/plain"));
            calls.add(call("no content type", method, path, body));
            calls.add(call("content type garbage", method, path, body, "Content-Type: garbage"));
            calls.add(call("text/plain, Accept XML", method, path, body, "Content-Type: text/plain", "Accept: application/xml"));
            calls.add(call("JSON, Accept XML", method, path, body, JSON_CT, "Accept: application/xml"));
            calls.add(call("JSON, Accept SSE", method, path, body, JSON_CT, "Accept: text/event-stream"));
            calls.add(call("JSON, Accept garbage", method, path, body, JSON_CT, "Accept: garbage"));
        }
        return calls;
    }

    private static List<Call> concat(List<Call> a, List<Call> b) {
        List<Call> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** A HEAD request's answer: status and the compared headers (the body must be empty). */
    private String head(String face, String path) throws Exception {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path.replace("{F}", face)))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
        Map<String, String> h = new LinkedHashMap<>();
        for (String name : COMPARED) {
            r.headers().firstValue(name).ifPresent(v -> h.put(name, normalise(face, v)));
        }
        h.computeIfPresent("content-length", (k, v) -> "present"); // "instance" names the face's path
        setOrder(h);
        h.put("names", names(r.headers().map().keySet()));
        return r.statusCode() + " " + h + " body: '" + r.body() + "'";
    }

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
}
