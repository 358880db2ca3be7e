package dev.corobridge.demo.web.transport;

/**
 * Text a client sent (a path, a header, a decoder's message quoting them), made safe to log or to
 * echo in a problem: control characters and surrogates are written as {@code \}{@code uXXXX}, so a
 * client cannot forge log lines, and the text is cut at a bounded length.
 *
 * <p>Stateless; thread-safe.
 */
final class ClientText {

    private ClientText() {
    }

    /** {@code s} with at most {@code max} code points ({@code ...} marks a cut), or "" for null. */
    static String printable(String s, int max) {
        if (s == null) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        int codePoints = 0;
        for (int i = 0; i < s.length(); i = s.offsetByCodePoints(i, 1)) {
            if (codePoints++ == max) {
                return b.append("...").toString();
            }
            int cp = s.codePointAt(i);
            boolean unsafe = Character.isISOControl(cp) || Character.getType(cp) == Character.SURROGATE;
            b.append(unsafe ? "\\u%04X".formatted(cp) : Character.toString(cp));
        }
        return b.toString();
    }
}
