package dev.corobridge.demo.journal;

import static dev.corobridge.demo.journal.TestAppends.append;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.HopTrace;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.ChangeLogMetrics;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.ring.RingPool;

/**
 * The journal on a ring pool of its own per test (corobridge-test), which fails a test that leaves
 * a journal's file open or a ring operation in flight, and closes the pool after it.
 */
class JournalTest extends JournalFixture {

    JournalTest(RingPool pool) {
        super(pool);
    }

    @Test
    void changesSurviveReopenInOrder() throws Exception {
        Path file = dir.resolve("journal.log");
        List<Change> written = new ArrayList<>();
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).isEmpty();
            written.add(new Change.CreateBoard("b1", "Groceries ünïcödé 🥕"));
            for (int i = 1; i <= 100; i++) {
                written.add(new Change.AddNote("b1", "n" + i, "note " + i + "\nline two"));
            }
            written.add(new Change.EditNote("b1", "n3", "edited", 1));
            written.add(new Change.DeleteNote("b1", "n4", Change.ANY_VERSION));
            List<Awaitable<LogPosition>> acks = new ArrayList<>();
            for (Change c : written) {
                acks.add(append(j, c));
            }
            long last = -1;
            for (Awaitable<LogPosition> a : acks) {
                long offset = a.join(T).offset();
                assertThat(offset).isGreaterThan(last); // offsets follow append order
                last = offset;
            }
            assertThat(j.metrics().changes()).isEqualTo(written.size());
        }
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).containsExactlyElementsOf(written);
            assertThat(j.recovery().tornBytes()).isZero();
        }
    }

    @Test
    void sixtyFourWaitingWritersShareOneFdatasync() throws Exception {
        try (Journal j = Journal.open(pool, dir.resolve("journal.log"), T)) {
            // Hold the journal's ring so that every append queues before the first commit starts.
            CountDownLatch release = holdRing(j);
            List<Awaitable<LogPosition>> acks = new ArrayList<>();
            HopTrace trace = new HopTrace();
            for (int i = 0; i < 64; i++) {
                acks.add(append(j, new Change.AddNote("b1", "n" + (i + 1), "text " + i), i == 0 ? trace : null));
            }
            release.countDown();
            for (Awaitable<LogPosition> a : acks) {
                a.join(T);
            }
            ChangeLogMetrics m = j.metrics();
            assertThat(m.changes()).isEqualTo(64);
            assertThat(m.commits()).isEqualTo(1);
            assertThat(m.largestBatch()).isEqualTo(64);
            assertThat(trace.getHops()).singleElement().satisfies(h -> {
                assertThat(h.context()).isEqualTo(j.ring().getName());
                assertThat(h.note()).isEqualTo("journal");
            });
        }
    }

    /**
     * The change-log calls: {@code start} replays what was read at open from the position asked for
     * (records before it left out), then delivers each durable change with its append id on the
     * ring, in file order; positions are partition 0 and the record's offset; a journal starts once.
     */
    @Test
    void startReplaysFromAPositionThenDeliversEachDurableChange() throws Exception {
        Path file = dir.resolve("journal.log");
        List<LogPosition> at = new ArrayList<>();
        try (Journal j = Journal.open(pool, file, T)) {
            for (String b : List.of("b1", "b2", "b3")) {
                at.add(append(j, new Change.CreateBoard(b, "board " + b)).join(T));
            }
        }
        assertThat(at).extracting(LogPosition::partition).containsOnly(0);
        assertThat(at.get(0).offset()).isEqualTo(JournalCodec.FILE_HEADER);
        assertThat(at.get(2).isAtOrAfter(at.get(1))).isTrue();
        try (Journal j = Journal.open(pool, file, T)) {
            RecordingSink sink = new RecordingSink(j);
            j.start(List.of(at.get(1)), sink).join(T);
            assertThat(sink.calls).containsExactly("replay [b2#0,b3#0]");
            LogPosition fourth = j.append(new Change.CreateBoard("b4", "live"), 7, null).join(T);
            assertThat(fourth.offset()).isGreaterThan(at.get(2).offset());
            assertThat(sink.calls).containsExactly("replay [b2#0,b3#0]", "apply [b4#7] on the ring");
            assertThatThrownBy(() -> j.start(List.of(), sink)).isInstanceOf(IllegalStateException.class);
            assertThat(j.metrics().replayed()).isEqualTo(3);
        }
    }

    @ParameterizedTest(name = "cut {0} bytes of the last record")
    @ValueSource(ints = {1, 4, 8, 9, 20, 22, 30, 40, 53})
    void tornTailIsCutAndEverythingBeforeItKept(int cut) throws Exception {
        Path file = dir.resolve("journal.log");
        try (Journal j = Journal.open(pool, file, T)) {
            for (int i = 1; i <= 3; i++) {
                append(j, new Change.CreateBoard("b" + i, "board number " + i)).join(T);
            }
        }
        long full = Files.size(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(full - cut);
        }
        long lastRecord = JournalCodec.HEADER + JournalCodec.payload(new Change.CreateBoard("b3", "board number 3")).length;
        assertThat(lastRecord).isEqualTo(54);
        byte[] before = Files.readAllBytes(file);
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).extracting(Change::boardId).containsExactly("b1", "b2");
            assertThat(j.recovery().tornBytes()).isEqualTo(lastRecord - cut);
            assertThat(Files.size(file)).isEqualTo(full - lastRecord);
            // The cut bytes are kept beside the journal.
            assertThat(j.recovery().tornTailCopy().getFileName().toString()).startsWith("journal.log.torn-" + (full - lastRecord) + "-");
            assertThat(Files.readAllBytes(j.recovery().tornTailCopy()))
                    .isEqualTo(java.util.Arrays.copyOfRange(before, (int) (full - lastRecord), before.length));
            // Appends continue where the valid part ends.
            append(j, new Change.CreateBoard("b4", "after repair")).join(T);
        }
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).extracting(Change::boardId).containsExactly("b1", "b2", "b4");
            assertThat(j.recovery().tornBytes()).isZero();
            assertThat(j.recovery().tornTailCopy()).isNull();
        }
    }

    @Test
    void aNewJournalStartsWithTheFileHeader() throws Exception {
        Path file = dir.resolve("journal.log");
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).isEmpty();
            assertThat(j.metrics().bytes()).isEqualTo(JournalCodec.FILE_HEADER);
            assertThat(append(j, new Change.CreateBoard("b1", "first")).join(T).offset()).isEqualTo(JournalCodec.FILE_HEADER);
        }
        assertThat(Files.readAllBytes(file)).startsWith(JournalCodec.fileHeader());
    }

    @Test
    void aFlippedBitInTheLastRecordIsATornTail() throws Exception {
        Path file = dir.resolve("journal.log");
        try (Journal j = Journal.open(pool, file, T)) {
            append(j, new Change.CreateBoard("b1", "one")).join(T);
            append(j, new Change.CreateBoard("b2", "two")).join(T);
        }
        long size = Files.size(file);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            ch.read(b, size - 2);
            b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
            ch.write(b, size - 2);
        }
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).extracting(Change::boardId).containsExactly("b1");
            assertThat(j.recovery().tornBytes()).isPositive();
        }
    }

    @Test
    void appendsAfterCloseAreRefusedNotLost() throws Exception {
        Journal j = Journal.open(pool, dir.resolve("journal.log"), T);
        Awaitable<LogPosition> before = append(j, new Change.CreateBoard("b1", "kept"));
        j.close(T);
        assertThat(before.join(T).offset()).isEqualTo(JournalCodec.FILE_HEADER); // queued before close: committed
        Awaitable<LogPosition> after = append(j, new Change.CreateBoard("b2", "refused"));
        assertThat(after.isDone()).isTrue(); // refused at once, nothing queued
        assertThatThrownBy(() -> after.join(T)).isInstanceOf(JournalClosedException.class)
                .hasMessageContaining("is closing; the change was not written");
        assertThat(j.isBroken()).isFalse();
        j.close(T); // a second close returns at once
        try (Journal again = Journal.open(pool, dir.resolve("journal.log"), T)) {
            assertThat(again.replayed()).extracting(Change::boardId).containsExactly("b1");
        }
    }

    @Test
    void aCloseThatGivesUpWaitingFailsTheWaitingAppendsAsNotCommittedNotBroken() throws Exception {
        Journal j = Journal.open(pool, dir.resolve("journal.log"), T);
        append(j, new Change.CreateBoard("b1", "committed")).join(T);
        // Hold the journal's ring: the queued append cannot commit, so the close cannot drain.
        CountDownLatch release = holdRing(j);
        Awaitable<LogPosition> waiting = append(j, new Change.CreateBoard("b2", "never committed"));
        j.close(Duration.ZERO); // gives up at once: the ring is held
        release.countDown();
        assertThatThrownBy(() -> waiting.join(T)).isInstanceOf(JournalClosedException.class)
                .hasMessageContaining("closed before this change was committed");
        assertThat(j.isBroken()).isFalse();
        try (Journal again = Journal.open(pool, dir.resolve("journal.log"), T)) {
            assertThat(again.replayed()).extracting(Change::boardId).containsExactly("b1");
        }
    }

    @Test
    void aJournalThatCannotBeOpenedFailsClearly() throws IOException {
        Path notADir = Files.writeString(dir.resolve("file"), "x");
        assertThatThrownBy(() -> Journal.open(pool, notADir.resolve("journal.log"), T))
                .isInstanceOf(IOException.class);
    }
}
