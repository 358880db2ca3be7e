package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The bad input sweep: a table of malformed requests (bad JSON, wrong types, huge bodies,
 * traversal attempts in every path and name parameter, odd unicode, ill-formed UTF-8, duplicate
 * keys, missing or wrong content types and codings, framing a client library would not send,
 * wrong methods and media types, ids never made, broken chunked bodies, a body that stops short),
 * each of which must get a 4xx with problem JSON
 * whose detail shows no internals, never a 5xx, and leave the state unchanged (the board list and
 * the journal's change count are compared before and after). The test that runs it also checks
 * the service's log for ERROR lines.
 */
public final class BadInput {

    private static final String JSON_CT = "application/json";
    private static final Set<Integer> S400 = Set.of(400);
    private static final Set<Integer> S404 = Set.of(404);
    private static final Set<Integer> S400_404 = Set.of(400, 404);

    /**
     * One malformed request and the statuses the contract allows for it. {@code raw}, when not null,
     * is the whole request as bytes on the wire (for framing a client library would not send: two
     * {@code Content-Type} headers, a {@code Transfer-Encoding} other than chunked, a body without a
     * length); it is sent on a connection of its own, and the other fields only describe it.
     */
    public record Case(String name, String method, String path, String contentType, byte[] body,
                       Map<String, String> headers, Set<Integer> expected, byte[] raw) {

        public Case(String name, String method, String path, String contentType, byte[] body,
                    Map<String, String> headers, Set<Integer> expected) {
            this(name, method, path, contentType, body, headers, expected, null);
        }

        @Override
        public String toString() {
            return name + " [" + method + " " + (path.length() > 80 ? path.substring(0, 80) + "..." : path) + "]";
        }
    }

    /** What the sweep found. */
    public record Result(int cases, List<String> failures) {
        public void assertAllPassed() {
            if (!failures.isEmpty()) {
                throw new AssertionError(failures.size() + " of " + cases + " bad-input cases failed:\n  "
                        + String.join("\n  ", failures));
            }
        }
    }

    /** What a problem's detail never shows: Java signatures, class names, server paths. */
    private static final String INTERNALS =
            "(?s).*(dev\\.corobridge|org\\.springframework|tools\\.jackson|reactor\\.|java\\.|kotlin\\.|public |Task<).*";

    private final Http http;

    public BadInput(Http http) {
        this.http = http;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Case c(String name, String method, String path, String ct, String body, Set<Integer> expected) {
        return new Case(name, method, path, ct, body == null ? null : utf8(body), Map.of(), expected);
    }

    private static Case c(String name, String method, String path, String ct, byte[] body, Set<Integer> expected) {
        return new Case(name, method, path, ct, body, Map.of(), expected);
    }

    /** A JSON body around bytes that are not well-formed UTF-8 (given as hex) in a string field. */
    private static byte[] illFormed(String field, String hex) {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        b.writeBytes(utf8("{\"" + field + "\":\"a"));
        b.writeBytes(java.util.HexFormat.of().parseHex(hex));
        b.writeBytes(utf8("b\"}"));
        return b.toByteArray();
    }

    /** A request exactly as written: request line, {@code Host}, these header lines, then the body. */
    private static Case raw(String name, String method, String path, List<String> headerLines, String body,
                            Set<Integer> expected) {
        StringBuilder r = new StringBuilder(method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
        headerLines.forEach(h -> r.append(h).append("\r\n"));
        r.append("\r\n").append(body == null ? "" : body);
        return new Case(name, method, path, null, body == null ? null : utf8(body), Map.of(), expected,
                r.toString().getBytes(StandardCharsets.ISO_8859_1));
    }

    /** Overlong forms, surrogates, beyond U+10FFFF, never-used bytes, stray and truncated sequences. */
    private static final List<String> ILL_FORMED_UTF8 = List.of(
            "c0af", "e080af", "f08080af", "c0aec0aec0af", "eda080", "f4908080", "f5808080", "80", "e282");

    /** The table, against board {@code b} (revision 1) holding note {@code n} (version 1). */
    public static List<Case> table(String b, String n) {
        List<Case> t = new ArrayList<>();
        String big = "{\"name\":\"" + "x".repeat(100 * 1024) + "\"}";
        String bigText = "{\"text\":\"" + "y".repeat(100 * 1024) + "\"}";
        byte[] invalidUtf8 = {'{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        byte[] invalidUtf8Text = {'{', '"', 't', 'e', 'x', 't', '"', ':', '"', (byte) 0xFF, (byte) 0xFE, '"', '}'};
        String deep = "[".repeat(5000) + "]".repeat(5000);
        for (String face : Scenarios.FACES) {
            String boards = face + "/boards";
            String notes = boards + "/" + b + "/notes";
            String note = notes + "/" + n;
            String f = face.equals("/api") ? "java: " : "kotlin: ";
            // create board: JSON and types
            t.add(c(f + "truncated JSON", "POST", boards, JSON_CT, "{\"name\": \"abc", S400));
            t.add(c(f + "empty body", "POST", boards, JSON_CT, "", S400));
            t.add(c(f + "JSON null", "POST", boards, JSON_CT, "null", S400));
            t.add(c(f + "JSON array", "POST", boards, JSON_CT, "[]", S400));
            t.add(c(f + "JSON string", "POST", boards, JSON_CT, "\"Groceries\"", S400));
            t.add(c(f + "name is a number", "POST", boards, JSON_CT, "{\"name\": 5}", S400));
            t.add(c(f + "name is a boolean", "POST", boards, JSON_CT, "{\"name\": true}", S400));
            t.add(c(f + "name is null", "POST", boards, JSON_CT, "{\"name\": null}", S400));
            t.add(c(f + "name is an array", "POST", boards, JSON_CT, "{\"name\": [\"a\"]}", S400));
            t.add(c(f + "name is an object", "POST", boards, JSON_CT, "{\"name\": {\"a\": 1}}", S400));
            t.add(c(f + "name missing", "POST", boards, JSON_CT, "{}", S400));
            t.add(c(f + "name misspelled only", "POST", boards, JSON_CT, "{\"nmae\": \"x\"}", S400));
            t.add(c(f + "name empty", "POST", boards, JSON_CT, "{\"name\": \"\"}", S400));
            t.add(c(f + "name blank", "POST", boards, JSON_CT, "{\"name\": \" \\t\\n \"}", S400));
            t.add(c(f + "name of em spaces (unicode blank)", "POST", boards, JSON_CT, "{\"name\": \"\u2003\u2003\"}", S400));
            t.add(c(f + "name 101 chars", "POST", boards, JSON_CT, "{\"name\": \"" + "x".repeat(101) + "\"}", S400));
            t.add(c(f + "name 101 CJK chars", "POST", boards, JSON_CT, "{\"name\": \"" + "漢".repeat(101) + "\"}", S400));
            t.add(c(f + "invalid UTF-8 in name", "POST", boards, JSON_CT, invalidUtf8, S400));
            t.add(c(f + "name with an unpaired high surrogate", "POST", boards, JSON_CT, "{\"name\": \"a\\ud800b\"}", S400));
            t.add(c(f + "name with a control character", "POST", boards, JSON_CT, "{\"name\": \"a\\u0001b\"}", S400));
            t.add(c(f + "name with an extra field", "POST", boards, JSON_CT, "{\"name\": \"x\", \"admin\": true}", S400));
            t.add(c(f + "nesting 5000 deep", "POST", boards, JSON_CT, deep, S400));
            t.add(c(f + "number beyond any range", "POST", boards, JSON_CT, "{\"name\": 1e999999999}", S400));
            // content types and sizes
            t.add(c(f + "text/plain body", "POST", boards, "text/plain", "{\"name\": \"x\"}", Set.of(415)));
            t.add(c(f + "no content type", "POST", boards, null, "{\"name\": \"x\"}", Set.of(415)));
            t.add(c(f + "XML body", "POST", boards, "application/xml", "<board><name>x</name></board>", Set.of(415)));
            t.add(c(f + "form body", "POST", boards, "application/x-www-form-urlencoded", "name=x", Set.of(415)));
            t.add(c(f + "body of 100 KB", "POST", boards, JSON_CT, big, Set.of(413)));
            t.add(c(f + "note body of 100 KB", "POST", notes, JSON_CT, bigText, Set.of(413)));
            // add note
            t.add(c(f + "note to unknown board", "POST", boards + "/b999999/notes", JSON_CT, "{\"text\": \"x\"}", S404));
            t.add(c(f + "note text empty", "POST", notes, JSON_CT, "{\"text\": \"\"}", S400));
            t.add(c(f + "note text blank", "POST", notes, JSON_CT, "{\"text\": \"\\t \\n\"}", S400));
            t.add(c(f + "note text a number", "POST", notes, JSON_CT, "{\"text\": 12}", S400));
            t.add(c(f + "note text null", "POST", notes, JSON_CT, "{\"text\": null}", S400));
            t.add(c(f + "note text 2001 chars", "POST", notes, JSON_CT, "{\"text\": \"" + "z".repeat(2001) + "\"}", S400));
            t.add(c(f + "note truncated JSON", "POST", notes, JSON_CT, "{\"text\": \"abc", S400));
            t.add(c(f + "note invalid UTF-8", "POST", notes, JSON_CT, invalidUtf8Text, S400));
            t.add(c(f + "note text with NUL", "POST", notes, JSON_CT, "{\"text\": \"milk\\u0000\"}", S400));
            t.add(c(f + "note text with an unpaired low surrogate", "POST", notes, JSON_CT, "{\"text\": \"\\udc00milk\"}", S400));
            t.add(c(f + "edit with an extra field", "PUT", note, JSON_CT, "{\"text\": \"x\", \"expectedVersion\": 1, \"id\": \"n1\"}", S400));
            t.add(c(f + "note text/plain", "POST", notes, "text/plain", "milk", Set.of(415)));
            // edit note
            t.add(c(f + "edit with stale version", "PUT", note, JSON_CT, "{\"text\": \"x\", \"expectedVersion\": 7}", Set.of(409)));
            t.add(c(f + "edit version is a string", "PUT", note, JSON_CT, "{\"text\": \"x\", \"expectedVersion\": \"one\"}", S400));
            t.add(c(f + "edit version is fractional", "PUT", note, JSON_CT, "{\"text\": \"x\", \"expectedVersion\": 1.5}", S400));
            t.add(c(f + "edit text empty", "PUT", note, JSON_CT, "{\"text\": \"\", \"expectedVersion\": 1}", S400));
            t.add(c(f + "edit unknown note", "PUT", notes + "/n99999999", JSON_CT, "{\"text\": \"x\", \"expectedVersion\": 1}", S404));
            t.add(c(f + "edit no content type", "PUT", note, null, "{\"text\": \"x\", \"expectedVersion\": 1}", Set.of(415)));
            // delete note and its query parameter
            t.add(c(f + "delete version not a number", "DELETE", note + "?expectedVersion=abc", null, (String) null, S400));
            t.add(c(f + "delete version overflows", "DELETE", note + "?expectedVersion=99999999999999999999999", null, (String) null, S400));
            t.add(c(f + "delete version traversal", "DELETE", note + "?expectedVersion=..%2F..%2Fjournal.log", null, (String) null, S400));
            t.add(c(f + "delete stale version", "DELETE", note + "?expectedVersion=9", null, (String) null, Set.of(409)));
            t.add(c(f + "delete unknown note", "DELETE", notes + "/n99999999", null, (String) null, S404));
            // long poll: the target board is at revision 1, so 'after' above it cannot come from it
            String changes = boards + "/" + b + "/changes";
            t.add(c(f + "long poll after a revision the board has not reached", "GET", changes + "?after=2", null, (String) null, Set.of(409)));
            t.add(c(f + "long poll after a revision far ahead", "GET", changes + "?after=" + Long.MAX_VALUE, null, (String) null, Set.of(409)));
            t.add(c(f + "long poll after a negative revision", "GET", changes + "?after=-1", null, (String) null, S400));
            t.add(c(f + "long poll after not a number", "GET", changes + "?after=soon", null, (String) null, S400));
            t.add(c(f + "long poll after overflows", "GET", changes + "?after=99999999999999999999999", null, (String) null, S400));
            // traversal in every path parameter
            t.add(c(f + "board id ../", "GET", boards + "/..%2F..%2Fetc%2Fpasswd", null, (String) null, S400_404));
            t.add(c(f + "board id dot-dot segments", "GET", boards + "/%2e%2e/%2e%2e/journal.log", null, (String) null, S400_404));
            t.add(c(f + "board id with NUL", "GET", boards + "/b1%00", null, (String) null, S400_404));
            t.add(c(f + "board id absolute path", "GET", boards + "/%2Fetc%2Fpasswd", null, (String) null, S400_404));
            t.add(c(f + "board id odd unicode", "GET", boards + "/%E2%80%AEb1", null, (String) null, S400_404));
            t.add(c(f + "board id 3000 chars", "GET", boards + "/b" + "1".repeat(3_000), null, (String) null, S400_404));
            t.add(c(f + "notes of traversal board", "POST", boards + "/..%2Fb1/notes", JSON_CT, "{\"text\": \"x\"}", S400_404));
            t.add(c(f + "note id traversal", "PUT", notes + "/..%2F..%2Fjournal.log", JSON_CT, "{\"text\": \"x\", \"expectedVersion\": 1}", S400_404));
            t.add(c(f + "note id dot-dot", "DELETE", notes + "/%2e%2e", null, (String) null, Set.of(400, 404, 405)));
            t.add(c(f + "events of traversal board", "GET", boards + "/..%2F..%2Fetc/events", null, (String) null, S400_404));
            t.add(c(f + "stats of unknown board", "GET", boards + "/b99999999/stats", null, (String) null, S404));
            t.add(c(f + "stats of traversal board", "GET", boards + "/%2e%2e%2f%2e%2e/stats", null, (String) null, S400_404));
            t.add(c(f + "invalid board id syntax", "GET", boards + "/BAD!ID", null, (String) null, S400_404));
            // methods and media types
            t.add(c(f + "PATCH boards", "PATCH", boards, JSON_CT, "{\"name\": \"x\"}", Set.of(405)));
            t.add(c(f + "DELETE boards", "DELETE", boards, null, (String) null, Set.of(405)));
            t.add(c(f + "PUT board", "PUT", boards + "/" + b, JSON_CT, "{\"name\": \"x\"}", Set.of(405)));
            t.add(new Case(f + "Accept: application/xml", "GET", boards + "/" + b, null, null,
                    Map.of("Accept", "application/xml"), Set.of(406)));
            // strict input (issue 14): ill-formed UTF-8, duplicate keys, content codings, ids never made
            for (String hex : ILL_FORMED_UTF8) {
                t.add(c(f + "board name with ill-formed UTF-8 " + hex, "POST", boards, JSON_CT, illFormed("name", hex), S400));
            }
            for (String hex : List.of("c0af", "eda080", "f4908080")) {
                t.add(c(f + "note text with ill-formed UTF-8 " + hex, "POST", notes, JSON_CT, illFormed("text", hex), S400));
            }
            t.add(c(f + "duplicate key in create board", "POST", boards, JSON_CT, "{\"name\":\"a\",\"name\":\"b\"}", S400));
            t.add(c(f + "duplicate key in add note", "POST", notes, JSON_CT, "{\"text\":\"a\",\"text\":\"a\"}", S400));
            t.add(c(f + "duplicate key in edit", "PUT", note, JSON_CT,
                    "{\"text\":\"a\",\"expectedVersion\":1,\"expectedVersion\":1}", S400));
            for (String coding : List.of("gzip", "deflate", "br")) {
                t.add(new Case(f + "Content-Encoding: " + coding + " on a plain body", "POST", boards, JSON_CT,
                        utf8("{\"name\":\"coded\"}"), Map.of("Content-Encoding", coding), Set.of(415)));
            }
            t.add(c(f + "board id b0 (well-formed, never made)", "GET", boards + "/b0", null, (String) null, S404));
            t.add(c(f + "board id b007 (well-formed, never made)", "GET", boards + "/b007", null, (String) null, S404));
            t.add(c(f + "note id n0 (well-formed, never made)", "GET", note.substring(0, note.lastIndexOf('/')) + "/n0",
                    null, (String) null, S404));
            // framing a client library would not send: on the wire as written
            t.add(raw(f + "Transfer-Encoding: xchunked", "POST", boards,
                    List.of("Content-Type: application/json", "Transfer-Encoding: xchunked"), "{\"name\":\"x\"}", S400));
            t.add(raw(f + "Transfer-Encoding: gzip, chunked", "POST", boards,
                    List.of("Content-Type: application/json", "Transfer-Encoding: gzip, chunked"),
                    "c\r\n{\"name\":\"x\"}\r\n0\r\n\r\n", S400));
            t.add(raw(f + "Transfer-Encoding: identity", "POST", boards,
                    List.of("Content-Type: application/json", "Transfer-Encoding: identity"), "{\"name\":\"x\"}", S400));
            t.add(raw(f + "two Content-Type headers", "POST", boards,
                    List.of("Content-Type: application/json", "Content-Type: text/plain", "Content-Length: 12"),
                    "{\"name\":\"x\"}", S400));
            t.add(raw(f + "Content-Length: 0", "POST", boards,
                    List.of("Content-Type: application/json", "Content-Length: 0"), null, S400));
            t.add(raw(f + "a body without a length", "POST", notes, List.of("Content-Type: application/json"), null, S400));
            t.add(raw(f + "edit without a body", "PUT", note, List.of("Content-Type: application/json"), null, S400));
            // refused by the HTTP decoder before Spring sees the request: problem JSON all the same
            t.add(raw(f + "an 8 KB board id", "GET", boards + "/b" + "1".repeat(8 * 1024), List.of(), null, Set.of(414)));
            t.add(raw(f + "a 9 KB header", "GET", boards, List.of("X-Big: " + "v".repeat(9 * 1024)), null, Set.of(431)));
            t.add(raw(f + "two different Content-Lengths", "POST", boards,
                    List.of("Content-Type: application/json", "Content-Length: 12", "Content-Length: 13"),
                    "{\"name\":\"x\"}", S400));
            t.add(raw(f + "NUL in a header", "GET", boards, List.of("X-A: a\u0000b"), null, S400));
            // a chunked body that breaks after the request reached its handler
            List<String> chunked = List.of("Content-Type: application/json", "Transfer-Encoding: chunked");
            t.add(raw(f + "a chunk size that is not hex", "POST", notes, chunked, "zz\r\n{\"text\":\"x\"}\r\n0\r\n\r\n", S400));
            t.add(raw(f + "a bad chunk size after a good chunk", "POST", notes, chunked,
                    "4\r\n{\"te\r\n-1\r\nxt\":\"x\"}\r\n0\r\n\r\n", S400));
        }
        // A body that stops short of its Content-Length: 408 once demo.http.body-timeout has passed
        // (the sweep waits for the answer, as long as the service's timeout; once, not per face: the
        // deadline is the transport's).
        t.add(raw("a body that stops short of its Content-Length", "POST", "/api/boards/" + b + "/notes",
                List.of("Content-Type: application/json", "Content-Length: 100"), "{\"text\":\"never fin", Set.of(408)));
        t.add(c("unknown route", "GET", "/api/nope", null, (String) null, S404));
        t.add(c("unknown nested route", "GET", "/api/boards/x/y/z/w", null, (String) null, S400_404));
        return t;
    }

    /**
     * Runs the table against a fresh target board and note, and returns every failure: wrong or 5xx
     * status, a body that is not problem JSON, or a changed state.
     */
    public Result sweep() {
        Scenarios s = new Scenarios(http);
        String b = s.createBoard("/api", "sweep target").path("id").asText();
        String n = s.addNote("/api", b, "untouchable").path("id").asText();

        JsonNode before = s.snapshotAll();
        long changesBefore = http.get("/api/live").expect(200).path("journal").path("changes").asLong();

        List<Case> table = table(b, n);
        List<String> failures = new ArrayList<>();
        for (Case c : table) {
            try {
                Http.Response r = c.raw() != null ? http.sendRaw(c.toString(), c.raw())
                        : http.send(c.method(), c.path(), c.contentType(), c.body(), c.headers());
                String problem = problemViolation(r, c.expected());
                if (problem != null) {
                    failures.add(c + ": " + problem);
                }
            } catch (RuntimeException e) {
                failures.add(c + ": request failed: " + e);
            }
        }

        JsonNode after = s.snapshotAll();
        long changesAfter = http.get("/api/live").expect(200).path("journal").path("changes").asLong();
        if (!after.equals(before)) {
            failures.add("state changed by the sweep:\n    before " + before + "\n    after  " + after);
        }
        if (changesAfter != changesBefore) {
            failures.add("journal changes went from " + changesBefore + " to " + changesAfter + " during the sweep");
        }
        return new Result(table.size(), failures);
    }

    /** Null if the response is a 4xx problem JSON with an allowed status, else what is wrong. */
    public static String problemViolation(Http.Response r, Set<Integer> expected) {
        String got = r.status() + " " + r.contentType() + " " + r.abbreviated();
        if (r.status() >= 500 && !expected.contains(r.status())) {
            return "5xx: " + got;
        }
        if (!expected.contains(r.status())) {
            return "expected " + expected + " but got " + got;
        }
        if (!r.contentType().startsWith("application/problem+json")) {
            return "not problem JSON: " + got;
        }
        JsonNode j;
        try {
            j = r.json();
        } catch (AssertionError e) {
            return "problem body is not JSON: " + got;
        }
        if (j.path("status").asInt() != r.status()) {
            return "problem status " + j.path("status") + " differs from " + r.status();
        }
        if (!j.hasNonNull("title")) {
            return "problem has no title: " + got;
        }
        if (j.path("detail").asText().matches(INTERNALS)) {
            return "the detail shows internals (a Java signature, a class or a server path): " + got;
        }
        return null;
    }

    /** Asserts a 4xx problem JSON with one of the statuses. */
    public static void checkProblem(Http.Response r, Set<Integer> expected) {
        String v = problemViolation(r, expected);
        if (v != null) {
            throw new AssertionError(r.request() + ": " + v);
        }
    }
}
