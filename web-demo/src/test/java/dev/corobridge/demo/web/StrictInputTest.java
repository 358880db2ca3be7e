package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Strict input on both faces: every ill-formed UTF-8 sequence (the Unicode standard's definition:
 * overlong forms, surrogates, code points above U+10FFFF, stray or missing continuation bytes) and
 * duplicate JSON keys are refused with 400; a body in a content coding the service does not decode
 * is 415; a transfer coding other than {@code chunked} and two {@code Content-Type} headers are 400.
 * A body is read as UTF-8 whatever the {@code charset} label says (a body in another encoding is
 * 400, an unknown charset name 415).
 * Nothing is journaled. A well-formed id of a board or note that does not exist is 404.
 */
class StrictInputTest extends LiveServiceTestBase {

    /** Ill-formed UTF-8 inside a JSON string, as hex. */
    private static final List<String> ILL_FORMED = List.of(
            "c0af",             // overlong '/'
            "c1bf",             // overlong
            "e080af",           // overlong 3-byte '/'
            "f08080af",         // overlong 4-byte '/'
            "eda080",           // UTF-8 encoded surrogate U+D800
            "edbfbf",           // UTF-8 encoded surrogate U+DFFF
            "f4908080",         // U+110000, above the last code point
            "f5808080",         // never a lead byte
            "f888808080",       // 5-byte form
            "80",               // stray continuation byte
            "e282",             // truncated sequence
            "e228a1",           // bad second byte
            "c0aec0aec0af");    // overlong "../"

    private static byte[] body(String field, String illFormedHex) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("{\"" + field + "\":\"a").getBytes(StandardCharsets.US_ASCII));
        b.writeBytes(HexFormat.of().parseHex(illFormedHex));
        b.writeBytes("b\"}".getBytes(StandardCharsets.US_ASCII));
        return b.toByteArray();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void illFormedUtf8IsRefusedEverywhere(String face) throws Exception {
        String b = createBoard(face, "utf-8");
        String n = addNote(face, b, "keep");
        String before = state();
        for (String hex : ILL_FORMED) {
            assertThat(problem(exchange(json("POST", face + "/boards", body("name", hex))), 400))
                    .as("board name with %s", hex).contains("UTF-8");
            assertThat(problem(exchange(json("POST", face + "/boards/" + b + "/notes", body("text", hex))), 400))
                    .as("note text with %s", hex).contains("UTF-8");
            byte[] edit = body("text", hex);
            byte[] withVersion = new byte[edit.length + 20];
            String tail = ",\"expectedVersion\":1}";
            System.arraycopy(edit, 0, withVersion, 0, edit.length - 1);
            byte[] t = tail.getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(t, 0, withVersion, edit.length - 1, t.length);
            assertThat(problem(exchange(json("PUT", face + "/boards/" + b + "/notes/" + n, withVersion)), 400))
                    .as("edit with %s", hex).contains("UTF-8");
        }
        assertThat(state()).isEqualTo(before);
        // Well-formed text of every length class still passes, also across the reads of a long body.
        String all = "a\u00e9\u20ac\ud834\udd1e\u6f22";
        assertThat(ok(json("POST", face + "/boards", "{\"name\":\"" + all + "\"}"), 201).path("name").asString())
                .isEqualTo(all);
        String longText = (all + " ").repeat(2000 / (all.length() + 1));
        assertThat(ok(json("POST", face + "/boards/" + b + "/notes", "{\"text\":\"" + longText + "\"}"), 201)
                .path("text").asString()).isEqualTo(longText);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void duplicateKeysCodingsAndHeadersAreRefused(String face) throws Exception {
        String b = createBoard(face, "strict");
        String n = addNote(face, b, "keep");
        String before = state();
        assertThat(problem(exchange(json("POST", face + "/boards", "{\"name\":\"a\",\"name\":\"b\"}")), 400))
                .contains("uplicate").contains("name");
        assertThat(problem(exchange(json("POST", face + "/boards/" + b + "/notes", "{\"text\":\"a\",\"text\":\"a\"}")), 400))
                .contains("uplicate");
        assertThat(problem(exchange(json("PUT", face + "/boards/" + b + "/notes/" + n,
                "{\"text\":\"a\",\"expectedVersion\":1,\"expectedVersion\":1}")), 400)).contains("uplicate");

        byte[] body = "{\"name\":\"coded\"}".getBytes(StandardCharsets.UTF_8);
        for (String coding : List.of("gzip", "deflate", "br", "x-made-up", "gzip, identity")) {
            assertThat(problem(exchange(request("POST", face + "/boards", List.of("Content-Type: application/json",
                    "Content-Encoding: " + coding, "Content-Length: " + body.length), body)), 415))
                    .as("Content-Encoding: %s", coding).contains("Content-Encoding");
        }
        for (String te : List.of("gzip, chunked", "chunked, chunked", "identity")) {
            try (RawHttp c = new RawHttp(port)) {
                RawHttp.Response r = c.exchange(request("POST", face + "/boards", List.of("Content-Type: application/json",
                        "Transfer-Encoding: " + te), "10\r\n{\"name\":\"coded\"}\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
                assertThat(problem(r, 400)).as("Transfer-Encoding: %s", te).contains("Transfer-Encoding");
                assertThat(r.header("connection")).isEqualToIgnoringCase("close");
            }
        }
        assertThat(problem(exchange(request("POST", face + "/boards", List.of("Content-Type: application/json",
                "Content-Type: application/json", "Content-Length: " + body.length), body)), 400)).contains("Content-Type");
        assertThat(problem(exchange(request("POST", face + "/boards", List.of("Content-Type: application/json",
                "Content-Type: text/plain", "Content-Length: " + body.length), body)), 400)).contains("Content-Type");
        assertThat(state()).isEqualTo(before);
        // "identity" is no coding at all.
        ok(request("POST", face + "/boards", List.of("Content-Type: application/json", "Content-Encoding: identity",
                "Content-Length: " + body.length), body), 201);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aBodyIsReadAsUtf8WhateverItsCharsetLabel(String face) throws Exception {
        String b = createBoard(face, "charsets");
        String text = "caf\u00e9";
        // application/json defines no charset (RFC 8259, section 11): a label changes nothing.
        for (String charset : List.of("utf-8", "\"UTF-8\"", "utf-16", "utf-16le", "iso-8859-1", "utf-32")) {
            byte[] body = ("{\"text\":\"" + text + "\"}").getBytes(StandardCharsets.UTF_8);
            JsonNode note = ok(request("POST", face + "/boards/" + b + "/notes", List.of(
                    "Content-Type: application/json; charset=" + charset, "Content-Length: " + body.length), body), 201);
            assertThat(note.path("text").asString()).as("UTF-8 body labelled %s", charset).isEqualTo(text);
        }
        String before = state();
        // A body in another encoding is not UTF-8, whatever its label says.
        for (Charset charset : List.of(StandardCharsets.UTF_16, StandardCharsets.UTF_16LE, StandardCharsets.ISO_8859_1)) {
            byte[] body = ("{\"text\":\"" + text + "\"}").getBytes(charset);
            assertThat(problem(exchange(request("POST", face + "/boards/" + b + "/notes", List.of(
                    "Content-Type: application/json; charset=" + charset.name(), "Content-Length: " + body.length), body)), 400))
                    .as("%s body", charset).contains("UTF-8");
        }
        // Plain ASCII text in UTF-16 or UTF-32 without a byte order mark: every byte is well-formed
        // UTF-8 (a NUL beside each letter), and a JSON parser that guesses the encoding would read
        // it. It is not a UTF-8 JSON text either (JSON never holds a raw NUL), labelled or not.
        for (String encoding : List.of("UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE")) {
            byte[] note = "{\"text\":\"plain\"}".getBytes(Charset.forName(encoding));
            byte[] board = "{\"name\":\"plain\"}".getBytes(Charset.forName(encoding));
            for (String label : List.of("", "; charset=" + encoding)) {
                assertThat(problem(exchange(request("POST", face + "/boards/" + b + "/notes", List.of(
                        "Content-Type: application/json" + label, "Content-Length: " + note.length), note)), 400))
                        .as("a note in %s, labelled '%s'", encoding, label).contains("UTF-8").contains("offset");
                assertThat(problem(exchange(request("POST", face + "/boards", List.of(
                        "Content-Type: application/json" + label, "Content-Length: " + board.length), board)), 400))
                        .as("a board in %s, labelled '%s'", encoding, label).contains("UTF-8").contains("offset");
            }
        }
        // A NUL byte inside a UTF-8 string: the same refusal, at its offset.
        byte[] withNul = "{\"text\":\"a\0b\"}".getBytes(StandardCharsets.UTF_8);
        assertThat(problem(exchange(request("POST", face + "/boards/" + b + "/notes", List.of(
                "Content-Type: application/json", "Content-Length: " + withNul.length), withNul)), 400))
                .contains("byte 0x00 at offset 10");
        // A charset nobody knows: the media type is not one the service takes.
        byte[] body = "{\"text\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        problem(exchange(request("POST", face + "/boards/" + b + "/notes", List.of(
                "Content-Type: application/json; charset=x-made-up", "Content-Length: " + body.length), body)), 415);
        assertThat(state()).isEqualTo(before);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aWellFormedIdThatWasNeverMadeIsNotFound(String face) throws Exception {
        String b = createBoard(face, "ids");
        for (String id : List.of("b0", "b00", "b007", "b9999999999999999999")) {
            assertThat(problem(exchange(request("GET", face + "/boards/" + id, List.of(), null)), 404)).contains(id);
        }
        for (String id : List.of("n0", "n01")) {
            assertThat(problem(exchange(request("GET", face + "/boards/" + b + "/notes/" + id, List.of(), null)), 404))
                    .contains(id);
        }
        // Not the syntax of an id at all: 400.
        for (String id : List.of("b", "x1", "b-1", "b1a", "b" + "1".repeat(20))) {
            assertThat(problem(exchange(request("GET", face + "/boards/" + id, List.of(), null)), 400)).contains("not a board id");
        }
    }

    /**
     * A number in the query is ASCII digits and nothing else. Digits of other scripts (a fullwidth
     * one, Arabic-Indic, Devanagari), which {@code Long.parseLong} takes, and a sign are refused
     * with 400, and a delete with such a precondition deletes nothing.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aNumberInTheQueryIsAsciiDigitsOnly(String face) throws Exception {
        String b = createBoard(face, "digits");
        String n = addNote(face, b, "keep");
        String before = state();
        // U+FF11 FULLWIDTH DIGIT ONE, U+0661 ARABIC-INDIC DIGIT ONE, U+0967 DEVANAGARI DIGIT ONE, a sign.
        for (String one : List.of("%EF%BC%91", "%D9%A1", "%E0%A5%A7", "+1", "%2B1")) {
            assertThat(problem(exchange(request("DELETE", face + "/boards/" + b + "/notes/" + n + "?expectedVersion=" + one,
                    List.of(), null)), 400)).as("expectedVersion=%s", one).contains("'expectedVersion' must be a whole number");
            assertThat(problem(exchange(request("GET", face + "/boards/" + b + "/changes?after=" + one, List.of(), null)), 400))
                    .as("after=%s", one).contains("'after' must be a whole number");
        }
        assertThat(state()).isEqualTo(before);
    }

    /**
     * A delete's version check is never dropped silently: an {@code expectedVersion} without a value,
     * a query parameter the endpoint does not take (a misspelt {@code expectedversion}, an
     * {@code expectedVersion[]}) and a body (where a client may have put its check) are refused with
     * 400 and delete nothing; the long poll takes {@code after} only. Each of these deleted the note
     * unconditionally.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aDeletesVersionCheckIsNeverDroppedSilently(String face) throws Exception {
        String b = createBoard(face, "checked deletes");
        String n = addNote(face, b, "keep");
        String note = face + "/boards/" + b + "/notes/" + n;
        String before = state();
        assertThat(problem(exchange(request("DELETE", note + "?expectedVersion", List.of(), null)), 400))
                .contains("'expectedVersion' must be a whole number");
        for (String query : List.of("expectedversion=5", "expectedVersion%5B%5D=5", "expectedVersion=1&force=true")) {
            assertThat(problem(exchange(request("DELETE", note + "?" + query, List.of(), null)), 400))
                    .as(query).contains("query parameter").contains("expectedVersion");
        }
        assertThat(problem(exchange(json("DELETE", note, "{\"expectedVersion\":5}")), 400))
                .contains("no body").contains("expectedVersion");
        assertThat(problem(exchange(request("GET", face + "/boards/" + b + "/changes?since=5", List.of(), null)), 400))
                .contains("query parameter").contains("after");
        // Given twice: refused as such, not read as a value the client never sent ('1,1').
        assertThat(problem(exchange(request("DELETE", note + "?expectedVersion=1&expectedVersion=1", List.of(), null)), 400))
                .contains("'expectedVersion' is given 2 times").doesNotContain("1,1");
        assertThat(problem(exchange(request("GET", face + "/boards/" + b + "/changes?after=0&after=0", List.of(), null)), 400))
                .contains("'after' is given 2 times").doesNotContain("0,0");
        assertThat(state()).isEqualTo(before);
    }

    /**
     * {@code If-Match} is a precondition (RFC 9110, section 13.1.1): the service sends no entity
     * tags, so a tag can never match and the request is refused with 412, changing nothing; {@code *}
     * matches. It was ignored, and a generic client's lost-update check with it passed silently.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void ifMatchWithATagIsAPreconditionThatFails(String face) throws Exception {
        String b = createBoard(face, "if-match");
        String n = addNote(face, b, "keep");
        String note = face + "/boards/" + b + "/notes/" + n;
        String before = state();
        byte[] edit = "{\"text\":\"changed\",\"expectedVersion\":1}".getBytes(StandardCharsets.UTF_8);
        List<String> typed = List.of("Content-Type: application/json", "Content-Length: " + edit.length);
        for (String tag : List.of("\"bogus\"", "W/\"1\"", "\"1\", \"2\"")) {
            List<String> headers = new java.util.ArrayList<>(typed);
            headers.add("If-Match: " + tag);
            assertThat(problem(exchange(request("PUT", note, headers, edit)), 412)).as(tag).contains("If-Match");
            assertThat(problem(exchange(request("DELETE", note, List.of("If-Match: " + tag), null)), 412)).as(tag)
                    .contains("expectedVersion");
        }
        assertThat(state()).isEqualTo(before);
        List<String> any = new java.util.ArrayList<>(typed);
        any.add("If-Match: *");
        assertThat(exchange(request("PUT", note, any, edit)).status()).isEqualTo(200);
    }

    /**
     * The limits count UTF-16 code units, as JavaScript's {@code length} and the page's
     * {@code maxlength} do: a character outside the Basic Multilingual Plane counts 2, and the
     * refusal says so (it said "characters", which 51 emoji are not more than 100 of).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void theLimitsCountUtf16CodeUnitsAndSaySo(String face) throws Exception {
        String emoji = "\uD83D\uDE00";
        String b = createBoard(face, emoji.repeat(50));
        String before = state();
        assertThat(problem(exchange(json("POST", face + "/boards", "{\"name\":\"" + emoji.repeat(51) + "\"}")), 400))
                .contains("'name' is longer than 100 UTF-16 code units");
        assertThat(problem(exchange(json("POST", face + "/boards/" + b + "/notes", "{\"text\":\"" + emoji.repeat(1001) + "\"}")), 400))
                .contains("'text' is longer than 2000 UTF-16 code units");
        assertThat(state()).isEqualTo(before);
    }

    /**
     * A {@code Content-Type} that is no media type at all is 415 in the client's terms: Spring's
     * message named its own parameters ("'mimeType' must not be empty", "'value' must not be empty").
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aContentTypeThatIsNoMediaTypeIsRefusedInTheClientsTerms(String face) throws Exception {
        String before = state();
        byte[] body = "{\"name\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        for (String type : List.of(";;;", "application/json; charset=", "application/", "/json", "text/plain; =x")) {
            String detail = problem(exchange(request("POST", face + "/boards",
                    List.of("Content-Type: " + type, "Content-Length: " + body.length), body)), 415);
            assertThat(detail).as(type).contains("is not a media type").doesNotContainIgnoringCase("mime")
                    .doesNotContain("must not be empty");
        }
        assertThat(state()).isEqualTo(before);
    }

    /**
     * A refusal says what is wrong: an unknown charset is named as such (the 415 said the media type
     * was "not a media type"), and a 406 names what the endpoint answers with (it said only "Could
     * not find acceptable representation").
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void refusalsOfCharsetAndAcceptSayWhatIsWrong(String face) throws Exception {
        String before = state();
        byte[] body = "{\"name\":\"x\"}".getBytes(StandardCharsets.UTF_8);
        String detail = problem(exchange(request("POST", face + "/boards",
                List.of("Content-Type: application/json; charset=bogus", "Content-Length: " + body.length), body)), 415);
        assertThat(detail).contains("charset 'bogus'").contains("UTF-8").doesNotContain("is not a media type");
        String notAcceptable = problem(exchange(request("GET", face + "/boards", List.of("Accept: text/html"), null)), 406);
        assertThat(notAcceptable).contains("application/json").contains("Accept");
        // An Accept that cannot be read is not one that takes none of the types: the answer says which.
        for (String accept : List.of("application/json;q=abc", "///", "application/json;q=2")) {
            String unreadable = problem(exchange(request("GET", face + "/boards", List.of("Accept: " + accept), null)), 406);
            assertThat(unreadable).as(accept).contains("the request's Accept header cannot be read")
                    .contains("application/json").doesNotContain("takes none of them");
        }
        assertThat(state()).isEqualTo(before);
    }

    /**
     * A request of a later HTTP/1 minor version ({@code HTTP/1.2}) is answered in HTTP/1.1, the
     * highest version the service speaks (RFC 9110, section 6.2); the status line repeated
     * {@code HTTP/1.2} on the API's answers while static files and streams said 1.1.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api/ping", "/api/boards", "/api/kt/boards", "/api/boards/b1"})
    void aLaterHttpOneMinorVersionIsAnsweredInHttpOnePointOne(String path) throws Exception {
        for (String version : List.of("HTTP/1.2", "HTTP/1.9")) {
            try (RawHttp c = new RawHttp(port)) {
                c.send("GET " + path + " " + version + "\r\nHost: localhost\r\n\r\n");
                assertThat(c.readStatusLine()).as("%s %s", path, version).startsWith("HTTP/1.1 ");
            }
        }
    }

    /**
     * The service's own endpoints ({@code /api/ping}, {@code /api/live}) answer a method they do not
     * take as the boards' paths do: 405 whose {@code Allow} lists every method the path supports,
     * {@code HEAD} and {@code OPTIONS} included, the same list as their OPTIONS answer (it listed
     * only GET).
     */
    @Test
    void theServicesOwnEndpointsList405sMethodsAsTheirOptionsDo() throws Exception {
        for (String path : List.of("/api/ping", "/api/live")) {
            RawHttp.Response refused = exchange(request("PATCH", path, List.of(), null));
            assertThat(refused.status()).as(path).isEqualTo(405);
            RawHttp.Response options = exchange(request("OPTIONS", path, List.of(), null));
            assertThat(options.status()).as(path).isEqualTo(200);
            assertThat(methods(refused.header("allow"))).as(path).containsExactlyInAnyOrder("GET", "HEAD", "OPTIONS")
                    .isEqualTo(methods(options.header("allow")));
        }
    }

    private static java.util.Set<String> methods(String allow) {
        return java.util.Arrays.stream(String.valueOf(allow).split(",")).map(String::trim)
                .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
    }

    /**
     * An actuator's own 404 (an unknown metric or health component) says what a 404 means, as the
     * service's do; it said "the request was refused before it reached the service".
     */
    @Test
    void anActuatorsNotFoundSaysSo() throws Exception {
        for (String path : List.of("/actuator/metrics/no.such.metric", "/actuator/health/nosuchcomponent")) {
            RawHttp.Response r = exchange(request("GET", path, List.of(), null));
            assertThat(r.status()).as(path).isEqualTo(404);
            assertThat(problem(r, 404)).as(path).contains("no such endpoint or file").doesNotContain("before it reached");
        }
    }

    /**
     * A CORS preflight (OPTIONS with {@code Origin} and {@code Access-Control-Request-Method}) is
     * answered as any OPTIONS: {@code Allow} on a path that exists, 404 problem JSON on one that does
     * not, with the service's headers; and no {@code Access-Control-Allow-*}, since the service allows
     * no other origin. It got an empty 200 without {@code Allow} even on unknown paths.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void aCorsPreflightIsAnsweredAsAnyOptions(String face) throws Exception {
        String b = createBoard(face, "preflight");
        List<String> preflight = List.of("Origin: http://elsewhere.example", "Access-Control-Request-Method: POST");
        RawHttp.Response known = exchange(request("OPTIONS", face + "/boards/" + b + "/notes", preflight, null));
        RawHttp.Response plain = exchange(request("OPTIONS", face + "/boards/" + b + "/notes", List.of(), null));
        assertThat(known.status()).isEqualTo(200);
        assertThat(known.header("allow")).isEqualTo(plain.header("allow")).contains("POST");
        assertThat(known.header("hop-trace")).isNotNull();
        assertThat(known.headers().keySet()).noneMatch(h -> h.startsWith("access-control-allow"));
        RawHttp.Response unknown = exchange(request("OPTIONS", face + "/boards/" + b + "/nope", preflight, null));
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.header("content-type")).startsWith("application/problem+json");
    }

    /**
     * OPTIONS names the allowed methods and no empty {@code Accept-Patch}: that header lists at
     * least one media type (RFC 5789, section 3.1), and no endpoint takes PATCH.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void optionsSendsNoEmptyAcceptPatch(String face) throws Exception {
        String b = createBoard(face, "options");
        String n = addNote(face, b, "n");
        for (String path : List.of("/boards", "/boards/events", "/boards/" + b, "/boards/" + b + "/notes",
                "/boards/" + b + "/notes/" + n, "/boards/" + b + "/events", "/boards/" + b + "/stats",
                "/boards/" + b + "/changes")) {
            RawHttp.Response r = exchange(request("OPTIONS", face + path, List.of(), null));
            assertThat(r.status()).as(path).isEqualTo(200);
            assertThat(r.header("allow")).as(path).contains("OPTIONS");
            assertThat(r.header("accept-patch")).as(path).isNull();
        }
    }


    /** Nor does the OPTIONS answer of an actuator endpoint, which Spring gives an empty one. */
    @Test
    void optionsOfAnActuatorEndpointSendsNoEmptyAcceptPatch() throws Exception {
        RawHttp.Response r = exchange(request("OPTIONS", "/actuator/health", List.of(), null));
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.header("accept-patch")).isNull();
    }

    /**
     * Blank is what shows nothing: besides the white space {@code String.isBlank} knows, no-break
     * spaces (U+00A0, U+2007, U+202F), invisible format characters (U+200B, U+2060, U+FEFF), fillers
     * that render as nothing (U+3164, U+115F, U+1160, U+FFA0, U+2800) and invisible marks (U+034F,
     * variation selectors), alone or mixed; they were taken as a name or a note. Text with anything
     * visible in it is taken.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api", "/api/kt"})
    void textThatShowsNothingIsBlank(String face) throws Exception {
        String b = createBoard(face, "blank");
        String before = state();
        for (String blank : List.of("\\u00a0", "\\u2007\\u202f", "\\u200b", "\\u2060", "\\ufeff \\u00a0\\t",
                // Fillers that render as nothing (Hangul, braille) and invisible marks (the grapheme
                // joiner, variation selectors); the Hangul filler U+3164 was taken as a note.
                "\\u3164", "\\u115f\\u1160", "\\uffa0", "\\u2800", "\\u034f", "\\ufe0f", "\\udb40\\udd00")) {
            assertThat(problem(exchange(json("POST", face + "/boards", "{\"name\":\"" + blank + "\"}")), 400))
                    .as("name %s", blank).contains("'name' must not be blank");
            assertThat(problem(exchange(json("POST", face + "/boards/" + b + "/notes", "{\"text\":\"" + blank + "\"}")), 400))
                    .as("text %s", blank).contains("'text' must not be blank");
        }
        assertThat(state()).isEqualTo(before);
        ok(json("POST", face + "/boards/" + b + "/notes", "{\"text\":\"\\u00a0x\\u200b\"}"), 201);
    }
}
