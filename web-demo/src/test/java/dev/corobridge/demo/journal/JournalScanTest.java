package dev.corobridge.demo.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.journal.JournalScan.Verdict;

/**
 * The verdict rules of {@link JournalScan} on hand-made files: which damage is a torn last write
 * and which is corruption, by record numbers and commit boundaries.
 */
class JournalScanTest {

    /** Builds a format-2 file record by record. */
    private static final class File {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        File() {
            out.writeBytes(JournalCodec.fileHeader());
        }

        File record(long number, int commitIndex, boolean last) {
            byte[] payload = JournalCodec.payload(new Change.AddNote("b1", "n" + (number + 1), "note " + number));
            ByteBuffer b = ByteBuffer.allocate(JournalCodec.HEADER + payload.length);
            JournalCodec.putRecord(b, payload, JournalCodec.crc(payload, 0, payload.length), number, commitIndex, last);
            out.writeBytes(b.array());
            return this;
        }

        /** A record's worth of zeros: a block a crash left unwritten. */
        File zeros(int n) {
            out.writeBytes(new byte[n]);
            return this;
        }

        int size() {
            return out.size();
        }

        JournalScan scan() throws Exception {
            byte[] data = out.toByteArray();
            return JournalScan.of(data, data.length);
        }
    }

    private static int recordSize(long number) {
        return JournalCodec.HEADER + JournalCodec.payload(new Change.AddNote("b1", "n" + (number + 1), "note " + number)).length;
    }

    @Test
    void emptyAndCleanFiles() throws Exception {
        assertThat(JournalScan.of(new byte[0], 0).verdict()).isEqualTo(Verdict.CLEAN);
        JournalScan s = new File().record(0, 0, true).record(1, 0, false).record(2, 1, true).scan();
        assertThat(s.verdict()).isEqualTo(Verdict.CLEAN);
        assertThat(s.records()).extracting(JournalScan.Entry::number).containsExactly(0L, 1L, 2L);
        assertThat(s.records()).extracting(JournalScan.Entry::commitStart).containsExactly(0L, 1L, 1L);
    }

    @Test
    void aFileHeaderCutShortIsATornTailAtZero() throws Exception {
        byte[] header = Arrays.copyOf(JournalCodec.fileHeader(), 7);
        JournalScan s = JournalScan.of(header, header.length);
        assertThat(s.verdict()).isEqualTo(Verdict.TORN_TAIL);
        assertThat(s.tailOffset()).isZero();
    }

    @Test
    void anUnknownFormatIsRefused() {
        byte[] header = JournalCodec.fileHeader();
        ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).putInt(8, 3);
        ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).putInt(12, JournalCodec.crc(header, 0, 12));
        assertThatThrownBy(() -> JournalScan.of(header, header.length)).isInstanceOf(UnsupportedJournalFormatException.class)
                .hasMessageContaining("format 3");
    }

    @Test
    void zerosAfterTheLastCommitAreATornTail() throws Exception {
        File f = new File().record(0, 0, true).record(1, 0, true);
        int end = f.size();
        JournalScan s = f.zeros(4096).scan();
        assertThat(s.verdict()).isEqualTo(Verdict.TORN_TAIL);
        assertThat(s.tailOffset()).isEqualTo(end);
        assertThat(s.kept()).hasSize(2);
    }

    @Test
    void holesInsideTheUnfinishedLastCommitAreATornTail() throws Exception {
        // Commit #1.. was being written when the machine died: record #2's block never reached the
        // disk, #3's did, and the commit's last record is missing. Nothing of it was acknowledged.
        File f = new File().record(0, 0, true).record(1, 0, false);
        int hole = f.size();
        JournalScan s = f.zeros(recordSize(2)).record(3, 2, false).scan();
        assertThat(s.verdict()).isEqualTo(Verdict.TORN_TAIL);
        assertThat(s.tailOffset()).isEqualTo(hole);
        assertThat(s.kept()).extracting(JournalScan.Entry::number).containsExactly(0L, 1L);
        assertThat(s.damages()).singleElement().satisfies(d -> assertThat(d.lostRecords()).isEqualTo(1));
    }

    @Test
    void aHoleInACompletedCommitIsCorruption() throws Exception {
        // The same hole, but the commit's last record is there: the commit was complete (and its
        // fdatasync may have returned), so the hole is damage to acknowledged records.
        JournalScan s = new File().record(0, 0, true).record(1, 0, false).zeros(recordSize(2)).record(3, 2, true).scan();
        assertThat(s.verdict()).isEqualTo(Verdict.CORRUPT);
        assertThat(s.intactAfterFirstDamage()).isEqualTo(1);
    }

    @Test
    void damageThatTookTheEndOfAnEarlierCommitIsCorruptionEvenIfTheLastCommitIsTorn() throws Exception {
        // #1 ended commit 0..1 (acknowledged); it is damaged, and the unfinished commit #2.. follows.
        JournalScan s = new File().record(0, 0, false).zeros(recordSize(1)).record(2, 0, false).scan();
        assertThat(s.verdict()).isEqualTo(Verdict.CORRUPT);
    }

    @Test
    void damageBeforeALaterCommitIsCorruption() throws Exception {
        JournalScan s = new File().record(0, 0, true).zeros(recordSize(1)).record(2, 0, true).scan();
        assertThat(s.verdict()).isEqualTo(Verdict.CORRUPT);
        assertThat(s.damages()).singleElement().satisfies(d -> {
            assertThat(d.firstLostRecord()).isEqualTo(1);
            assertThat(d.lostRecords()).isEqualTo(1);
            assertThat(d.lostRecordsText()).isEqualTo("record #1");
        });
    }

    @Test
    void aBreakInTheNumbersIsCorruptionWithoutADamagedByte() throws Exception {
        JournalScan s = new File().record(0, 0, true).record(3, 0, true).record(4, 0, true).scan();
        assertThat(s.verdict()).isEqualTo(Verdict.CORRUPT);
        assertThat(s.damages()).singleElement().satisfies(d -> {
            assertThat(d.length()).isZero();
            assertThat(d.lostRecordsText()).isEqualTo("records #1..#2 (2 records)");
            assertThat(d.reason()).isEqualTo("record #3 where #1 was expected");
        });
        assertThat(s.records()).hasSize(3); // a repair keeps them all
    }

    @Test
    void aRecordThatRepeatsAnEarlierNumberIsCorruption() throws Exception {
        JournalScan s = new File().record(0, 0, true).record(1, 0, true).record(1, 0, true).scan();
        assertThat(s.verdict()).isEqualTo(Verdict.CORRUPT);
    }

    /**
     * Records that repeat numbers the file already holds (a copy of the last record appended, an
     * older region spliced in again) are damage of their bytes, one region per run, and not among
     * the records a repair keeps: replayed, each would apply its change a second time.
     */
    @Test
    void recordsThatRepeatEarlierNumbersAreADamagedRegionThatARepairDrops() throws Exception {
        File f = new File().record(0, 0, true).record(1, 0, true).record(2, 0, true);
        int repeatsAt = f.size();
        f.record(2, 0, true).record(0, 0, true).record(1, 0, true);
        int repeatsEnd = f.size();
        JournalScan s = f.record(3, 0, true).scan();
        assertThat(s.verdict()).isEqualTo(Verdict.CORRUPT);
        assertThat(s.records()).extracting(JournalScan.Entry::number).containsExactly(0L, 1L, 2L, 3L);
        assertThat(s.damages()).singleElement().satisfies(d -> {
            assertThat(d.offset()).isEqualTo(repeatsAt);
            assertThat(d.length()).isEqualTo(repeatsEnd - repeatsAt);
            assertThat(d.lostRecords()).isZero();
            assertThat(d.reason()).isEqualTo("record #2 repeats a number the journal holds already (up to #2)");
        });
        // At the end of the file too: not a torn last write, whose record would be intact and new.
        JournalScan atTheEnd = new File().record(0, 0, true).record(1, 0, true).record(1, 0, true).scan();
        assertThat(atTheEnd.verdict()).isEqualTo(Verdict.CORRUPT);
        assertThat(atTheEnd.records()).hasSize(2);
    }

    @Test
    void aFormatOneFileWithIntactRecordsAfterTheDamageIsCorruption() throws Exception {
        byte[] a = LegacyJournal.record(new Change.CreateBoard("b1", "one"));
        byte[] b = LegacyJournal.record(new Change.CreateBoard("b2", "two"));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        out.writeBytes(a);
        byte[] data = out.toByteArray();
        data[a.length + 3] = 0x7F; // record 1 claims 2 GB: a tail, if nobody looked further
        JournalScan s = JournalScan.of(data, data.length);
        assertThat(s.format()).isEqualTo(1);
        assertThat(s.verdict()).isEqualTo(Verdict.CORRUPT);
        assertThat(s.damages()).singleElement().satisfies(d -> {
            assertThat(d.offset()).isEqualTo(a.length);
            assertThat(d.length()).isEqualTo(b.length);
        });
        assertThat(s.records()).hasSize(2);
    }

    @Test
    void aNoteTextThatSpellsARecordCannotPassForOneWhenTheScanResynchronises() throws Exception {
        // A text whose characters are, byte for byte, an intact record #1.
        byte[] forged = new File().record(1, 0, true).out.toByteArray();
        String text = new String(forged, JournalCodec.FILE_HEADER, forged.length - JournalCodec.FILE_HEADER,
                java.nio.charset.StandardCharsets.ISO_8859_1);
        byte[] payload = JournalCodec.payload(new Change.AddNote("b1", "n1", text));
        ByteBuffer b = ByteBuffer.allocate(JournalCodec.FILE_HEADER + JournalCodec.HEADER + payload.length);
        b.put(JournalCodec.fileHeader());
        JournalCodec.putRecord(b, payload, JournalCodec.crc(payload, 0, payload.length), 0, 0, true);
        byte[] data = b.array();
        assertThat(JournalScan.of(data, data.length).records()).singleElement()
                .satisfies(r -> assertThat(((Change.AddNote) r.change()).text()).isEqualTo(text));
        // Damage the real record's header: the scan looks for the next record inside its payload,
        // and finds none (0xFE and 0x00 are two bytes each in modified UTF-8), so it is a torn tail.
        data[JournalCodec.FILE_HEADER + 4] ^= 1;
        JournalScan s = JournalScan.of(data, data.length);
        assertThat(s.records()).isEmpty();
        assertThat(s.verdict()).isEqualTo(Verdict.TORN_TAIL);
        assertThat(s.damages()).singleElement().satisfies(d -> assertThat(d.length()).isEqualTo(data.length - JournalCodec.FILE_HEADER));
    }
}
