package dev.corobridge.demo.web;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.core.JacksonException;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.core.exc.UnexpectedEndOfInputException;

/**
 * A problem's {@code detail} for a body that is not JSON, in the client's terms: what is wrong and
 * where ({@code malformed JSON at line 1, column 12: unexpected character '}'}). The parser's own
 * message is never passed on: it names parser switches ("Feature 'ALLOW_COMMENTS' not enabled"),
 * advises settings the client cannot change ("enable to allow") and is cut in odd places. A few of
 * its shapes are recognised, and anything else is "not valid JSON" at its place. Stateless,
 * thread-safe.
 */
final class JsonSyntaxDetail {

    private static final Pattern UNEXPECTED_CHAR = Pattern.compile("^Unexpected character \\('.*?' \\(code (\\d+)[^)]*\\)\\)");
    private static final Pattern TOKEN = Pattern.compile("^(?:Unrecognized|Non-standard) token '([^']*)'");
    private static final Pattern DUPLICATE = Pattern.compile("^Duplicate Object property \"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern LIMIT = Pattern.compile("maximum allowed \\((\\d+)");
    /** Longest quoted excerpt of the client's input. */
    private static final int EXCERPT = 40;

    private JsonSyntaxDetail() {
    }

    /** The detail for {@code e}, the parser's refusal of a request body. */
    static String of(JacksonException e) {
        return "malformed JSON" + where(e.getLocation()) + ": " + what(e);
    }

    private static String what(JacksonException e) {
        String m = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        if (e instanceof UnexpectedEndOfInputException || m.startsWith("Unexpected end-of-input")) {
            return "the body ends before the JSON value is complete";
        }
        if (m.startsWith("No content to map")) {
            return "the body holds no JSON value; a JSON object is expected";
        }
        if (m.contains("comment")) {
            return "comments are not JSON";
        }
        Matcher c = UNEXPECTED_CHAR.matcher(m);
        if (c.find()) {
            int code = Integer.parseInt(c.group(1));
            String character = code >= 0x20 && code < 0x7f ? "'" + (char) code + "'" : String.format("U+%04X", code);
            return "unexpected character " + character + (m.contains("in numeric value") ? " in a number"
                    : m.contains("comma to separate") ? "; expected ','"
                    : m.contains("colon to separate") ? "; expected ':'"
                    : m.contains("start property name") ? "; expected a property name in double quotes"
                    : m.contains("expected a valid value") ? "; expected a JSON value" : "");
        }
        Matcher limit = LIMIT.matcher(m);
        if (m.startsWith("Document nesting depth") && limit.find()) {
            return "the JSON is nested more than " + limit.group(1) + " levels deep";
        }
        if (m.startsWith("Number value length") && limit.find()) {
            return "a number is longer than " + limit.group(1) + " characters";
        }
        if (m.startsWith("String value length") && limit.find()) {
            return "a string is longer than " + limit.group(1) + " characters";
        }
        if (m.startsWith("Illegal unquoted character")) {
            return "a control character in a string must be escaped";
        }
        if (m.contains("escape")) {
            return "an invalid escape sequence in a string";
        }
        if (m.startsWith("Unexpected close marker")) {
            return "a closing bracket without its opening one";
        }
        if (m.contains("Leading zeroes") || m.startsWith("Invalid numeric value")) {
            return "a malformed number";
        }
        Matcher t = TOKEN.matcher(m);
        if (t.find()) {
            return "'" + JsonInput.printable(t.group(1), EXCERPT) + "' is not a JSON value";
        }
        Matcher d = DUPLICATE.matcher(m);
        if (d.find()) {
            return "a duplicate property \"" + JsonInput.printable(d.group(1), EXCERPT) + "\"";
        }
        if (m.contains("trailing token") || m.contains("Trailing token")) {
            return "more follows the JSON value";
        }
        return "not valid JSON";
    }

    private static String where(TokenStreamLocation at) {
        if (at == null || at.getLineNr() < 1) {
            return "";
        }
        return " at line " + at.getLineNr() + (at.getColumnNr() > 0 ? ", column " + at.getColumnNr() : "");
    }
}
