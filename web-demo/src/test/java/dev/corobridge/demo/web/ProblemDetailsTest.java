package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Problem details speak the client's terms: a missing body or a body the server cannot frame is
 * named as such, never by a Java signature; the health endpoint shows no details (the data
 * directory among them) to an anonymous client.
 */
class ProblemDetailsTest extends LiveServiceTestBase {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aMissingBodyIsNamedInTheClientsTerms(String face) throws Exception {
        String b = createBoard(face, "bodies");
        String before = state();
        for (String path : List.of(face + "/boards", face + "/boards/" + b + "/notes")) {
            // Content-Length: 0
            String detail = problem(exchange(request("POST", path,
                    List.of("Content-Type: application/json", "Content-Length: 0"), null)), 400);
            assertThat(detail).contains("body");
            // no length at all: a request without a body
            detail = problem(exchange(request("POST", path, List.of("Content-Type: application/json"), null)), 400);
            assertThat(detail).contains("body");
        }
        // A transfer coding the server cannot frame (RFC 9112 6.3: 400, then close).
        try (RawHttp c = new RawHttp(port)) {
            RawHttp.Response r = c.exchange(request("POST", face + "/boards",
                    List.of("Content-Type: application/json", "Transfer-Encoding: xchunked"),
                    "{\"name\":\"x\"}".getBytes(StandardCharsets.UTF_8)));
            assertThat(problem(r, 400)).contains("Transfer-Encoding");
            assertThat(r.header("connection")).isEqualToIgnoringCase("close");
        }
        assertThat(state()).isEqualTo(before);
    }

    /**
     * {@code instance} is the request's path, whole, on both faces: it was cut at 40 characters, so a
     * path of 38 and more (a board id of 20 digits, a note's path) lost its end, sooner on the Kotlin
     * face's longer prefix, and the faces answered differently.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void theInstanceIsTheWholePath(String face) throws Exception {
        for (String path : List.of(face + "/boards/b9999999999999999999/stats",
                face + "/boards/b9999999999999999999/notes/n9999999999999999999",
                face + "/boards/b1/notes/" + "n%C3%A9".repeat(300))) {
            RawHttp.Response r = exchange(request("GET", path, List.of(), null));
            assertThat(r.status()).as(path).isIn(400, 404);
            assertThat(JSON.readTree(r.body()).path("instance").asString()).as(r.body()).isEqualTo(path);
        }
        // Raw UTF-8 bytes in the path (not percent-encoded, as a careless client sends them) make a
        // target that is not a URI (RFC 9112): refused before any route, the problem naming the byte.
        String raw = new String((face + "/boards/b1/notes/n\u00fc").translateEscapes().getBytes(StandardCharsets.UTF_8),
                StandardCharsets.ISO_8859_1);
        RawHttp.Response r = exchange(request("GET", raw, List.of(), null));
        assertThat(problem(r, 400)).contains("not a URI").contains("a raw byte above 0x7f");
    }

    /**
     * Jackson's messages name its own types and switches ("bound as `tools.jackson.databind.JsonNode`",
     * "Feature 'ALLOW_COMMENTS' not enabled", "enable to allow") and some are cut short ("(start
     * marker"): a malformed body's detail says, in the service's words, what is wrong with the JSON
     * and where, on both faces.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void malformedJsonIsNamedInTheClientsTerms(String face) throws Exception {
        String b = createBoard(face, "malformed");
        String before = state();
        List<String> bodies = List.of("{\"name\":\"a\"} {\"name\":\"b\"}", "{\"name\":\"a\"} x", "{\"name\":\"a\"}]",
                "{\"name\":\"a\",}", "{\"name\":", "{name:\"a\"}", "{\"name\":\"a\" \"b\"}", "nul", "{\"name\":01}",
                "{\"name\":\"a\"", "[1,2", "{\"name\":\"a\" // note\n}", "{\"name\":\"a\" /* note */}", "{\"name\": NaN}",
                "{\"name\":\"\\x\"}", "{\"name\":\"a\\u00\"}", "{\"name\":\"a\u0001\"}", " ", "{\"name\":\"a\",\"name\":\"b\"}",
                "{\"name\":+1}", "{\"name\" \"a\"}", "[".repeat(600) + "]".repeat(600), "{\"name\":" + "9".repeat(1200) + "}");
        SoftAssertions softly = new SoftAssertions();
        for (String path : List.of(face + "/boards", face + "/boards/" + b + "/notes")) {
            for (String body : bodies) {
                String detail = problem(exchange(json("POST", path, body.getBytes(StandardCharsets.UTF_8))), 400);
                softly.assertThat(detail).as("%s %s", path, body).matches("malformed JSON( at line \\d+(, column \\d+)?)?: .+")
                        .doesNotContainIgnoringCase("jackson").doesNotContainIgnoringCase("feature").doesNotContain("bound as")
                        .doesNotContainIgnoringCase("enable").doesNotContain("marker").doesNotContain("code ")
                        .doesNotContain("`").doesNotContain("java.").doesNotContain("dev.corobridge").doesNotContain("not valid JSON");
                softly.assertThat(detail.chars().filter(ch -> ch == '(').count()).as("%s %s: balanced", path, detail)
                        .isEqualTo(detail.chars().filter(ch -> ch == ')').count());
            }
        }
        softly.assertAll();
        assertThat(state()).isEqualTo(before);
    }

    /**
     * A problem's title is the reason phrase of its status line, RFC 9110's (413 "Content Too Large",
     * where Netty's older phrase was "Request Entity Too Large"), and its {@code instance} is the
     * request's path or absent, never {@code null} or empty (both checked by {@link #problem}).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void theTitleIsTheStatusLinesReasonAndTheInstanceAPath(String face) throws Exception {
        String b = createBoard(face, "titles");
        problem(exchange(json("POST", face + "/boards/" + b + "/notes", "{\"text\":\"" + "x".repeat(70_000) + "\"}")), 413);
        problem(exchange(request("GET", face + "/boards/b99999", List.of(), null)), 404);
        problem(exchange(request("DELETE", face + "/boards", List.of(), null)), 405);
        problem(exchange(request("GET", face + "/boards/" + b, List.of("Accept: text/csv"), null)), 406);
        problem(exchange(request("POST", face + "/boards", List.of("Content-Type: text/plain", "Content-Length: 1"), "x".getBytes())), 415);
        problem(exchange(request("GET", "/api/ping?" + "q".repeat(5000), List.of(), null)), 414);
        problem(exchange(request("OPTIONS", "*", List.of(), null)), 404); // a target that is no path: no instance
    }

    /**
     * RFC 9110, section 12.5.1: a media range with {@code q=0} is "not acceptable", and the most
     * specific range that matches a type decides its weight. Spring's negotiation ignored the zero
     * and served JSON to a client that refused it.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aTypeTheClientRefusesWithQZeroIsNotServed(String face) throws Exception {
        String b = createBoard(face, "q zero");
        for (String refusing : List.of("application/json;q=0", "application/json; q=0.000", "*/*;q=0",
                "application/json;q=0, */*", "application/*;q=0, text/*", "text/html, application/json;q=0")) {
            problem(exchange(request("GET", face + "/boards/" + b, List.of("Accept: " + refusing), null)), 406);
        }
        for (String taking : List.of("application/json;q=0.001", "application/*;q=0, application/json", "*/*;q=0, application/json",
                "text/event-stream;q=0, application/json;q=0.5", "application/json;q=0.0001", "*/*;q=0.5")) {
            assertThat(exchange(request("GET", face + "/boards/" + b, List.of("Accept: " + taking), null)).status())
                    .as("Accept: %s", taking).isEqualTo(200);
        }
        assertThat(exchange(request("GET", face + "/boards/" + b + "/events", List.of("Accept: text/event-stream;q=0, */*"), null))
                .status()).as("an event stream refused").isEqualTo(406);
    }

    @Test
    void healthShowsNoDetailsToAnAnonymousClient() throws Exception {
        RawHttp.Response r = exchange(request("GET", "/actuator/health", List.of(), null));
        assertThat(r.status()).isEqualTo(200);
        assertThat(JSON.readTree(r.body()).path("status").asString()).isEqualTo("UP");
        assertThat(r.body()).doesNotContain("components").doesNotContain("details")
                .doesNotContain(DATA.toString());
    }
}
