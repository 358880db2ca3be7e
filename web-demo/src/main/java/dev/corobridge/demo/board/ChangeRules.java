package dev.corobridge.demo.board;

/**
 * What a well-formed change holds, as the API takes it: the syntax of board and note ids, and the
 * limits of a board's name and a note's text. The web layer checks requests with these rules before
 * a change is made; a cluster replica's store checks every change it applies with them too, since
 * a record on the shared topic may come from another producer. Stateless, thread-safe.
 */
public final class ChangeRules {

    /** Longest board name, in UTF-16 units. */
    public static final int MAX_NAME = 100;
    /** Longest note text, in UTF-16 units. */
    public static final int MAX_TEXT = 2000;
    /**
     * The syntax of an id: its letter and 1 to 19 digits. The service makes {@code b1}, {@code b2},
     * ... (a cluster replica {@code b} and 19 random digits), but any id of this syntax is a
     * well-formed name of a resource that may not exist ({@code b0}, {@code b007}).
     */
    private static final int MAX_ID_DIGITS = 19;

    private ChangeRules() {
    }

    /** Whether {@code id} is {@code letter} followed by 1 to 19 ASCII digits (a loop: no matcher per request). */
    public static boolean isId(String id, char letter) {
        if (id == null || id.length() < 2 || id.length() > 1 + MAX_ID_DIGITS || id.charAt(0) != letter) {
            return false;
        }
        for (int i = 1; i < id.length(); i++) {
            char c = id.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code s} shows nothing: every code point is white space, a space separator (the
     * no-break spaces, which {@link String#isBlank} keeps), an invisible format character (U+200B,
     * U+2060, U+FEFF ...), a filler that renders as nothing (the Hangul fillers U+115F, U+1160,
     * U+3164, U+FFA0; the blank braille pattern U+2800) or an invisible mark (the combining
     * grapheme joiner U+034F, the variation selectors).
     */
    static boolean showsNothing(String s) {
        return s.codePoints().allMatch(c -> Character.isWhitespace(c) || Character.isSpaceChar(c)
                || Character.getType(c) == Character.FORMAT || isInvisibleFillerOrMark(c));
    }

    private static boolean isInvisibleFillerOrMark(int c) {
        return c == 0x115F || c == 0x1160 || c == 0x3164 || c == 0xFFA0 || c == 0x2800 || c == 0x034F
                || (c >= 0x180B && c <= 0x180F) || (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xE0100 && c <= 0xE01EF);
    }

    /**
     * What is wrong with {@code s} as the text of {@code field} (a name, a note's text), or null:
     * blank ({@link #showsNothing}), longer than {@code max}, an unpaired surrogate, or a control
     * character other than tab and line feed.
     */
    public static String textProblem(String field, String s, int max) {
        if (showsNothing(s)) {
            return "'" + field + "' must not be blank";
        }
        if (s.length() > max) {
            // As JavaScript's length and an input's maxlength count: a character outside the BMP is 2.
            return "'" + field + "' is longer than " + max + " UTF-16 code units";
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return "'" + field + "' contains an unpaired surrogate at index " + i;
            }
            if (Character.isLowSurrogate(c)) {
                return "'" + field + "' contains an unpaired surrogate at index " + i;
            }
            if (Character.isISOControl(c) && c != '\n' && c != '\t') {
                return "'" + field + "' contains the control character U+" + String.format("%04X", (int) c) + " at index " + i;
            }
        }
        return null;
    }

    /**
     * What is wrong with {@code change}, or null: an id of the wrong syntax, a name or text the API
     * would refuse, and, where note ids are decided at apply ({@code idsAtApply}: a cluster
     * replica's store), an added note that brings its own id.
     */
    public static String problem(Change change, boolean idsAtApply) {
        if (!isId(change.boardId(), 'b')) {
            return shown(change.boardId()) + " is not a board id";
        }
        return switch (change) {
            case Change.CreateBoard c -> textProblem("name", c.name(), MAX_NAME);
            case Change.AddNote c -> {
                if (idsAtApply && !c.noteId().equals(Change.AddNote.ID_AT_APPLY)) {
                    yield "a note's id is decided when it is applied; this one brings its own, " + shown(c.noteId());
                }
                if (!idsAtApply && !isId(c.noteId(), 'n')) {
                    yield shown(c.noteId()) + " is not a note id";
                }
                yield textProblem("text", c.text(), MAX_TEXT);
            }
            case Change.EditNote c -> isId(c.noteId(), 'n') ? textProblem("text", c.text(), MAX_TEXT)
                    : shown(c.noteId()) + " is not a note id";
            case Change.DeleteNote c -> isId(c.noteId(), 'n') ? null : shown(c.noteId()) + " is not a note id";
        };
    }

    /**
     * A value safe to echo in a message or a log line: at most {@code max} code points ("..." after
     * it when cut), control characters and lone surrogates as {@code \\uXXXX}; "" for null.
     */
    public static String printable(String s, int max) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        s.codePoints().limit(max).forEach(cp -> {
            if (Character.isISOControl(cp) || Character.getType(cp) == Character.SURROGATE) {
                b.append(String.format("\\u%04X", cp));
            } else {
                b.appendCodePoint(cp);
            }
        });
        return s.codePointCount(0, s.length()) > max ? b + "..." : b.toString();
    }

    /** An id from a record, quoted for a message. */
    private static String shown(String s) {
        return "'" + printable(s, 40) + "'";
    }
}
