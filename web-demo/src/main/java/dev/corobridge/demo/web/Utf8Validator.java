package dev.corobridge.demo.web;

import dev.corobridge.demo.board.BoardException;

/**
 * Checks that a byte stream is well-formed UTF-8 as the Unicode standard defines it (chapter 3,
 * table 3-7 "Well-Formed UTF-8 Byte Sequences"), fed in pieces as a request body arrives: a sequence
 * may be split across pieces. Refused, with the offset of the first offending byte: overlong forms
 * ({@code C0 AF} for {@code /}), encoded surrogates ({@code ED A0 80}), code points above U+10FFFF,
 * bytes that never occur ({@code C0}, {@code C1}, {@code F5}..{@code FF}), stray continuation bytes
 * and a sequence cut short by the end of the body.
 *
 * <p>Why here and not in the JSON parser: the parser decodes some ill-formed sequences (an overlong
 * {@code C0 AF} becomes {@code /}), so a name could smuggle {@code ../} past every check made on the
 * decoded text; a body that is not UTF-8 is not JSON (RFC 8259, section 8.1).
 *
 * <p>For a JSON body ({@link #forJsonText()}) a NUL byte is refused too. It is well-formed UTF-8, but
 * a JSON text never holds one (a control character in a string must be escaped, RFC 8259 section 7),
 * and it is what gives away UTF-16 and UTF-32: plain ASCII in those encodings, without a byte order
 * mark, is a NUL beside every letter and otherwise well-formed UTF-8, and a JSON parser that guesses
 * the encoding from the first bytes would read it.
 *
 * <p>Algorithm: one pass, no buffering; the state is the number of continuation bytes still due and
 * the range the next one must fall in (only the second byte of a sequence has a narrower range than
 * {@code 80..BF}: that is where overlong forms, surrogates and the upper limit are excluded).
 *
 * <p>Not thread-safe: one instance per body, fed by one subscriber in order.
 */
final class Utf8Validator {

    /** Whether a NUL byte is refused (a JSON body). */
    private final boolean nulRefused;
    private long offset;
    private int due;        // continuation bytes still expected in the current sequence
    private int lo = 0x80;  // allowed range of the next continuation byte
    private int hi = 0xBF;

    /** A validator of well-formed UTF-8, nothing more. */
    Utf8Validator() {
        this(false);
    }

    private Utf8Validator(boolean nulRefused) {
        this.nulRefused = nulRefused;
    }

    /** A validator of a JSON text's bytes: well-formed UTF-8 without a NUL byte. */
    static Utf8Validator forJsonText() {
        return new Utf8Validator(true);
    }

    /** Checks the next byte; throws {@link BoardException} (400) at the first ill-formed byte. */
    void accept(byte value) {
        int b = value & 0xFF;
        if (b == 0 && nulRefused) {
            throw new BoardException(BoardException.Kind.INVALID, "the body is not JSON in UTF-8: byte 0x00 at offset "
                    + offset + " is a NUL, which a JSON text never holds (a body in UTF-16 or UTF-32 has them)");
        }
        if (due > 0) {
            if (b < lo || b > hi) {
                throw illFormed(b, "is not the continuation of the sequence before it");
            }
            due--;
            lo = 0x80;
            hi = 0xBF;
        } else if (b >= 0x80) {
            lead(b);
        }
        offset++;
    }

    private void lead(int b) {
        if (b >= 0xC2 && b <= 0xDF) {
            due = 1;
        } else if (b >= 0xE0 && b <= 0xEF) {
            due = 2;
            if (b == 0xE0) {
                lo = 0xA0; // below: an overlong form of a 1- or 2-byte sequence
            } else if (b == 0xED) {
                hi = 0x9F; // above: a surrogate, U+D800..U+DFFF
            }
        } else if (b >= 0xF0 && b <= 0xF4) {
            due = 3;
            if (b == 0xF0) {
                lo = 0x90; // below: an overlong form
            } else if (b == 0xF4) {
                hi = 0x8F; // above: beyond U+10FFFF
            }
        } else if (b >= 0x80 && b <= 0xBF) {
            throw illFormed(b, "is a continuation byte without a sequence to continue");
        } else {
            throw illFormed(b, "never occurs in UTF-8");
        }
    }

    /** Checks that the body did not end inside a sequence. */
    void finish() {
        if (due > 0) {
            throw new BoardException(BoardException.Kind.INVALID,
                    "the body is not well-formed UTF-8: it ends inside a multi-byte sequence");
        }
    }

    private BoardException illFormed(int b, String why) {
        return new BoardException(BoardException.Kind.INVALID, String.format(
                "the body is not well-formed UTF-8: byte 0x%02X at offset %d %s", b, offset, why));
    }
}
