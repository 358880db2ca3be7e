package dev.corobridge.demo.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.corobridge.demo.board.BoardState;
import dev.corobridge.demo.board.Note;
import dev.corobridge.demo.changelog.LogPosition;

/** A snapshot's bytes: versioned and checked; anything but an intact snapshot is refused, never half-read. */
class SnapshotCodecTest {

    static BoardsSnapshot sample() {
        return new BoardsSnapshot("notes-board-changes",
                List.of(new LogPosition(0, 12), new LogPosition(1, 0), new LogPosition(7, 1L << 40)),
                List.of(new BoardState("b00ff00ff00ff00ff", "Groceries ünïcödé 🥕", 5, 4,
                                List.of(new Note("n1", "b00ff00ff00ff00ff", "milk\nline two", 3),
                                        new Note("n4", "b00ff00ff00ff00ff", "x".repeat(2000), 1))),
                        new BoardState("b1", "empty", 0, 0, List.of())));
    }

    @Test
    void roundTripsEveryField() throws Exception {
        BoardsSnapshot s = sample();
        assertThat(SnapshotCodec.decode(SnapshotCodec.encode(s))).isEqualTo(s);
        BoardsSnapshot empty = new BoardsSnapshot("t", List.of(), List.of());
        assertThat(SnapshotCodec.decode(SnapshotCodec.encode(empty))).isEqualTo(empty);
    }

    @Test
    void everyFlippedByteIsDetected() {
        byte[] good = SnapshotCodec.encode(sample());
        for (int i = 0; i < good.length; i++) {
            byte[] bad = good.clone();
            bad[i] ^= 0x5A;
            int at = i;
            assertThatThrownBy(() -> SnapshotCodec.decode(bad)).as("byte %d flipped", at)
                    .isInstanceOf(SnapshotDamagedException.class);
        }
    }

    @Test
    void aCutOrGrownFileIsRefused() {
        byte[] good = SnapshotCodec.encode(sample());
        for (int length : new int[] {0, 7, SnapshotCodec.HEADER - 1, SnapshotCodec.HEADER, good.length - 1}) {
            assertThatThrownBy(() -> SnapshotCodec.decode(Arrays.copyOf(good, length))).as("cut to %d", length)
                    .isInstanceOf(SnapshotDamagedException.class);
        }
        assertThatThrownBy(() -> SnapshotCodec.decode(Arrays.copyOf(good, good.length + 1)))
                .isInstanceOf(SnapshotDamagedException.class).hasMessageContaining("cut short or grown");
    }

    @Test
    void anotherFormatIsRefusedByName() {
        byte[] other = SnapshotCodec.encode(sample());
        ByteBuffer.wrap(other).putInt(8, SnapshotCodec.FORMAT + 1);
        assertThatThrownBy(() -> SnapshotCodec.decode(other)).isInstanceOf(SnapshotDamagedException.class)
                .hasMessageContaining("format " + (SnapshotCodec.FORMAT + 1));
    }
}
