package dev.corobridge.demo.web;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.http.HttpHeaders;

import tools.jackson.databind.JsonNode;

import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.ChangeRules;

/**
 * Checks request bodies and path parameters before anything else sees them; every failure is a
 * {@link BoardException} of kind {@code INVALID} (400) naming the field. Bodies are read as
 * {@link JsonNode} rather than bound to classes, so a wrong JSON type is refused instead of coerced
 * (Jackson would turn {@code 5} into {@code "5"}), and unknown fields are refused too (a typo such
 * as {@code "txt"} should not silently create an empty note). Stateless, thread-safe.
 */
public final class JsonInput {

    /** Longest board name ({@link ChangeRules#MAX_NAME}). */
    public static final int MAX_NAME = ChangeRules.MAX_NAME;
    /** Longest note text ({@link ChangeRules#MAX_TEXT}). */
    public static final int MAX_TEXT = ChangeRules.MAX_TEXT;
    /** Where a delete's version check goes, as a refused body's detail says. */
    public static final String DELETE_CHECK = "a delete's version check goes in the query: ?expectedVersion=N";

    private JsonInput() {
    }

    /** The body of "create board": {@code {"name": ...}}. */
    public static String boardName(JsonNode body) {
        object(body, Set.of("name"));
        return text(body, "name", MAX_NAME);
    }

    /** The body of "add note": {@code {"text": ...}}. */
    public static String noteText(JsonNode body) {
        object(body, Set.of("text"));
        return text(body, "text", MAX_TEXT);
    }

    /** The body of "edit note": {@code {"text": ..., "expectedVersion": n}}. */
    public static Edit edit(JsonNode body) {
        object(body, Set.of("text", "expectedVersion"));
        String text = text(body, "text", MAX_TEXT);
        JsonNode v = body.get("expectedVersion");
        if (v == null || v.isNull()) {
            throw invalid("'expectedVersion' is required");
        }
        if (!v.isIntegralNumber() || !v.canConvertToLong() || v.longValue() < 1) {
            throw invalid("'expectedVersion' must be a whole number from 1 to " + Long.MAX_VALUE);
        }
        return new Edit(text, v.longValue());
    }

    /** A note edit. */
    public record Edit(String text, long expectedVersion) {
    }

    /** A board id path parameter ({@code b1}, ...). */
    public static String boardId(String id) {
        if (!ChangeRules.isId(id, 'b')) {
            throw invalid("'" + printable(id) + "' is not a board id (b1, b2, ...)");
        }
        return id;
    }

    /** A note id path parameter ({@code n1}, ...). */
    public static String noteId(String id) {
        if (!ChangeRules.isId(id, 'n')) {
            throw invalid("'" + printable(id) + "' is not a note id (n1, n2, ...)");
        }
        return id;
    }

    /**
     * An optional number query parameter of at least {@code min} ({@code expectedVersion}: 1, a note's
     * first version; {@code after}: 0, a new board's revision); {@code fallback} when absent.
     */
    public static long version(String value, String name, long min, long fallback) {
        if (value == null) {
            return fallback;
        }
        // ASCII digits only: Long.parseLong also takes a sign and the digits of every script
        // (a fullwidth '１' is 1), which would let a malformed precondition pass.
        if (!value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            try {
                long v = Long.parseLong(value);
                if (v >= min) {
                    return v;
                }
            } catch (NumberFormatException ignored) {
                // too large for a long: below
            }
        }
        throw invalid("'" + name + "' must be a whole number from " + min + " to " + Long.MAX_VALUE + ", was '"
                + printable(value) + "'");
    }

    /**
     * The value of query parameter {@code name}, the only one the endpoint takes: null when absent,
     * {@code ""} for one without a value ({@code ?expectedVersion}, refused by {@link #version} as a
     * number). Given more than once, or any other query parameter, it is refused: a misspelt
     * {@code expectedversion} must not drop a delete's version check without a word, and which of
     * two values the client meant is a guess.
     */
    public static String onlyQueryParameter(Map<String, List<String>> query, String name) {
        for (String given : query.keySet()) {
            if (!given.equals(name)) {
                throw invalid("unknown query parameter '" + printable(given) + "'; this endpoint takes only '" + name + "'");
            }
        }
        List<String> values = query.get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw invalid("'" + name + "' is given " + values.size() + " times; give it once");
        }
        String value = values.getFirst();
        return value == null ? "" : value;
    }

    /**
     * Refuses a request with a body where the endpoint takes none (a {@code DELETE}, whose version
     * check goes in the query: a body is not read, so a check put there would be dropped).
     */
    public static void noBody(HttpHeaders headers, String hint) {
        if (headers.getContentLength() > 0 || headers.containsHeader(HttpHeaders.TRANSFER_ENCODING)) {
            throw invalid("this request takes no body; " + hint);
        }
    }

    private static void object(JsonNode body, Set<String> allowed) {
        if (body == null || !body.isObject()) {
            throw invalid("the body must be a JSON object");
        }
        for (String name : body.propertyNames()) {
            if (!allowed.contains(name)) {
                throw invalid("unknown field '" + printable(name) + "'; expected " + allowed);
            }
        }
    }

    private static String text(JsonNode body, String field, int max) {
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            throw invalid("'" + field + "' is required");
        }
        if (!n.isString()) {
            throw invalid("'" + field + "' must be a string");
        }
        String s = n.stringValue();
        String problem = ChangeRules.textProblem(field, s, max);
        if (problem != null) {
            throw invalid(problem);
        }
        return s;
    }

    /** A value safe to echo in a message: bounded, control characters escaped. */
    static String printable(String s) {
        return printable(s, 40);
    }

    /** {@link #printable(String)} with room for {@code max} code points. */
    static String printable(String s, int max) {
        return ChangeRules.printable(s, max);
    }

    private static BoardException invalid(String detail) {
        return new BoardException(BoardException.Kind.INVALID, detail);
    }
}
