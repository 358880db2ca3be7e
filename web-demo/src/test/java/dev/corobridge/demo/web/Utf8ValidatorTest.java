package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.corobridge.demo.board.BoardException;

/**
 * {@link Utf8Validator} against the Unicode standard's table of well-formed sequences: every code
 * point's encoding passes, each class of ill-formed sequence is refused at its first bad byte, and
 * random bytes get the same verdict as the JDK's strict decoder (which follows the same table).
 * A JSON body's validator also refuses a NUL byte, which is well-formed UTF-8.
 */
class Utf8ValidatorTest {

    private static boolean wellFormed(byte[] bytes) {
        Utf8Validator v = new Utf8Validator();
        try {
            for (byte b : bytes) {
                v.accept(b);
            }
            v.finish();
            return true;
        } catch (BoardException e) {
            assertThat(e.kind()).isEqualTo(BoardException.Kind.INVALID);
            assertThat(e.getMessage()).contains("UTF-8");
            return false;
        }
    }

    private static boolean jdkDecodes(byte[] bytes) {
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    @Test
    void everyScalarValuePasses() {
        for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
            if (cp >= 0xD800 && cp <= 0xDFFF) {
                continue;
            }
            byte[] bytes = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
            if (!wellFormed(bytes)) {
                throw new AssertionError("U+" + Integer.toHexString(cp) + " was refused");
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"c0af", "c1bf", "e080af", "e09fbf", "f08080af", "f08fbfbf", "eda080", "edbfbf",
            "f4908080", "f5808080", "ff", "fe", "f888808080", "80", "bf", "c2", "e282", "f09f98", "e228a1",
            "c2c2", "41c3"})
    void illFormedSequencesAreRefused(String hex) {
        assertThat(wellFormed(HexFormat.of().parseHex(hex))).isFalse();
    }

    @Test
    void theOffsetIsThatOfTheFirstBadByte() {
        Utf8Validator v = new Utf8Validator();
        byte[] bytes = HexFormat.of().parseHex("41c3a9c0af");
        for (int i = 0; i < 3; i++) {
            v.accept(bytes[i]);
        }
        assertThatThrownBy(() -> v.accept(bytes[3])).hasMessageContaining("byte 0xC0 at offset 3");
    }

    @Test
    void randomBytesGetTheVerdictOfTheJdksStrictDecoder() {
        SplittableRandom random = new SplittableRandom(14);
        for (int round = 0; round < 100_000; round++) {
            byte[] bytes = new byte[1 + random.nextInt(8)];
            for (int i = 0; i < bytes.length; i++) {
                // Mostly bytes around the interesting boundaries.
                bytes[i] = (byte) (random.nextBoolean() ? random.nextInt(256) : 0x80 + random.nextInt(0x80));
            }
            boolean expected = jdkDecodes(bytes);
            assertThat(wellFormed(bytes)).as("%s", HexFormat.of().formatHex(bytes)).isEqualTo(expected);
        }
    }

    @Test
    void aJsonTextsValidatorRefusesNulAtItsOffset() {
        Utf8Validator plain = new Utf8Validator();
        plain.accept((byte) 0); // well-formed UTF-8: U+0000
        Utf8Validator json = Utf8Validator.forJsonText();
        byte[] utf16 = "{}".getBytes(StandardCharsets.UTF_16LE); // 7B 00 7D 00
        json.accept(utf16[0]);
        assertThatThrownBy(() -> json.accept(utf16[1])).isInstanceOf(BoardException.class)
                .hasMessageContaining("byte 0x00 at offset 1").hasMessageContaining("UTF-16");
        Utf8Validator ascii = Utf8Validator.forJsonText();
        for (byte b : "{\"text\":\"caf\u00e9\"}\t\r\n".getBytes(StandardCharsets.UTF_8)) {
            ascii.accept(b);
        }
        ascii.finish();
    }
}
