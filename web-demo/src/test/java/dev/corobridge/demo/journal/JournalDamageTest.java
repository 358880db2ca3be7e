package dev.corobridge.demo.journal;

import static dev.corobridge.demo.journal.TestAppends.append;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;

/**
 * One flipped byte anywhere in a journal of 1 008 records: in the file header, and in every field of
 * the first, a middle and the last records (marker, length, number, commit position, flags,
 * checksums, payload), plus random positions. Each time the journal either refuses to open with
 * the damage named and the file byte for byte as it was, or, only when the damage lies in the last,
 * unfinished write, cuts a torn tail and keeps its bytes beside the journal; and a repair keeps
 * every intact record and reports exactly the one record that was dropped.
 *
 * <p>The journal: records #0..#999 each committed alone, then #1000..#1007 in one commit (the ring
 * held while they queue), so the last commit has several records.
 */
class JournalDamageTest {

    private static final Duration T = Duration.ofSeconds(30);
    private static final int SINGLE = 1000;
    private static final int LAST_COMMIT = 8;

    private static RingPool pool;
    private static byte[] pristine;
    private static final List<Change> WRITTEN = new ArrayList<>();
    private static final List<Long> OFFSETS = new ArrayList<>();

    @TempDir
    static Path shared;

    @TempDir
    Path dir;

    @BeforeAll
    static void writeTheJournal() throws Exception {
        pool = RingPool.start(RingPoolConfig.builder().name("journal-damage").rings(1).build());
        Path file = shared.resolve("journal.log");
        try (Journal j = Journal.open(pool, file, T)) {
            for (int i = 0; i < SINGLE; i++) {
                Change c = i == 0 ? new Change.CreateBoard("b1", "board ünïcödé")
                        : new Change.AddNote("b1", "n" + i, "note number " + i + " " + "x".repeat(i % 40));
                WRITTEN.add(c);
                OFFSETS.add(append(j, c).join(T).offset());
            }
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            j.ring().execute(() -> {
                holding.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
            List<Awaitable<LogPosition>> acks = new ArrayList<>();
            for (int i = 0; i < LAST_COMMIT; i++) {
                Change c = new Change.EditNote("b1", "n" + (i + 1), "edited " + i, 1);
                WRITTEN.add(c);
                acks.add(append(j, c));
            }
            release.countDown();
            for (Awaitable<LogPosition> a : acks) {
                OFFSETS.add(a.join(T).offset());
            }
            assertThat(j.metrics().largestBatch()).isEqualTo(LAST_COMMIT);
        }
        pristine = Files.readAllBytes(file);
        OFFSETS.add((long) pristine.length); // the end of the last record
    }

    @AfterAll
    static void stopPool() {
        pool.close();
    }

    // ------------------------------------------------------------------ the positions

    @Test
    void everyFieldOfTheFirstMiddleAndLastRecordsAndTheFileHeader() throws Exception {
        List<Integer> positions = new ArrayList<>(List.of(0, 3, 8, 12, 15)); // file header: magic, format, checksum
        int last = WRITTEN.size() - 1;
        for (int record : new int[] {0, 1, 500, SINGLE - 1, SINGLE, SINGLE + 3, last}) {
            int at = OFFSETS.get(record).intValue();
            int end = OFFSETS.get(record + 1).intValue();
            // marker, length (low and high byte), number, commit position, flags, payload checksum,
            // header checksum, first and last payload byte
            for (int field : new int[] {0, 3, 4, 7, 8, 15, 16, 20, 24, 28, 32}) {
                positions.add(at + field);
            }
            positions.add(end - 1);
        }
        assertThat(positions).hasSizeGreaterThanOrEqualTo(20);
        for (int position : positions) {
            checkFlip(position, 0x01);
            checkFlip(position, 0x80);
        }
    }

    @Test
    void randomPositions() throws Exception {
        long seed = Long.getLong("journal.damage.seed", System.nanoTime());
        System.out.println("[journal damage] random positions, seed " + seed + " (replay: -Djournal.damage.seed=" + seed + ")");
        Random random = new Random(seed);
        for (int i = 0; i < 40; i++) {
            int position = random.nextInt(pristine.length);
            checkFlip(position, 1 << random.nextInt(8));
        }
    }

    /**
     * Flips {@code mask} at {@code position} and checks both recoveries: refuse (or a torn tail in
     * the last record), then repair.
     */
    private void checkFlip(int position, int mask) throws IOException {
        int record = recordAt(position); // -1: the file header
        boolean inLastRecord = record == WRITTEN.size() - 1;
        String what = "flip 0x" + Integer.toHexString(mask) + " at " + position + " (record #" + record + ")";
        Path file = dir.resolve("journal.log");
        clean();
        byte[] damaged = pristine.clone();
        damaged[position] ^= (byte) mask;
        Files.write(file, damaged);
        List<Change> intact = new ArrayList<>(WRITTEN);
        if (record >= 0) {
            intact.remove(record);
        }

        // 1. Refuse (the default), unless it is a torn tail.
        if (inLastRecord) {
            try (Journal j = Journal.open(pool, file, T)) {
                assertThat(j.replayed()).as(what).containsExactlyElementsOf(intact);
                assertThat(j.recovery().tornBytes()).as(what).isEqualTo(pristine.length - OFFSETS.get(record));
                assertThat(Files.size(file)).as(what).isEqualTo(OFFSETS.get(record));
                assertThat(Files.readAllBytes(j.recovery().tornTailCopy())).as(what + ": the cut bytes are kept")
                        .isEqualTo(slice(damaged, OFFSETS.get(record).intValue(), damaged.length));
                assertThat(j.recovery().repair()).isNull();
            }
            return;
        }
        JournalCorruptedException refused = catchThrowableOfType(JournalCorruptedException.class,
                () -> Journal.open(pool, file, T).close());
        assertThat(refused).as(what + ": refused").isNotNull();
        assertThat(Files.readAllBytes(file)).as(what + ": the file is untouched").isEqualTo(damaged);
        assertThat(siblings()).as(what + ": nothing written beside it but the claim's lock file")
                .containsExactlyInAnyOrder(file.getFileName().toString(), file.getFileName() + ".lock");
        JournalDamage first = refused.firstDamage();
        if (record < 0) {
            assertThat(first.offset()).isZero();
            assertThat(first.length()).isEqualTo(JournalCodec.FILE_HEADER);
            assertThat(first.reason()).isEqualTo("file header damaged");
            assertThat(refused).hasMessageContaining("damaged at offset 0");
        } else {
            assertThat(first.offset()).as(what).isEqualTo(OFFSETS.get(record));
            assertThat(first.length()).as(what).isEqualTo(OFFSETS.get(record + 1) - OFFSETS.get(record));
            assertThat(first.lostRecords()).as(what).isEqualTo(1);
            assertThat(refused).hasMessageContaining("damaged at offset " + OFFSETS.get(record) + " (record #" + record + ": ")
                    .hasMessageContaining((WRITTEN.size() - 1 - record) + " intact records follow");
        }
        assertThat(refused.scan().damages()).as(what).hasSize(1);

        // 2. Repair: every intact record kept, exactly the damaged one dropped, the damaged file kept.
        try (Journal j = Journal.open(pool, file, T, JournalRecovery.REPAIR)) {
            assertThat(j.replayed()).as(what).containsExactlyElementsOf(intact);
            JournalRepairReport report = j.recovery().repair();
            assertThat(report.keptRecords()).isEqualTo(intact.size());
            assertThat(report.dropped()).containsExactly(first);
            assertThat(report.droppedRecords()).isEqualTo(record < 0 ? 0 : 1);
            assertThat(report.droppedBytes()).isEqualTo(first.length());
            assertThat(Files.readAllBytes(report.damagedCopy())).as(what + ": the damaged file, byte for byte").isEqualTo(damaged);
            append(j, new Change.CreateBoard("b2", "after the repair")).join(T);
        } catch (Exception e) {
            throw new AssertionError(what, e);
        }
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).as(what + ": reopened").hasSize(intact.size() + 1).startsWith(intact.toArray(Change[]::new));
            assertThat(j.recovery().tornBytes()).isZero();
        }
    }

    /**
     * The last record appended again and an older region spliced in after it (a copy gone wrong):
     * refused, and a repair keeps every change once; it kept the repeats, and the replay applied
     * them a second time (a board's revision rose with nothing changed).
     */
    @Test
    void repeatedRecordsAreRefusedAndARepairKeepsEachChangeOnce() throws Exception {
        Path file = dir.resolve("journal.log");
        clean();
        int last = OFFSETS.get(WRITTEN.size() - 1).intValue();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(pristine);
        out.writeBytes(slice(pristine, last, pristine.length));
        out.writeBytes(slice(pristine, OFFSETS.get(10).intValue(), OFFSETS.get(13).intValue()));
        byte[] damaged = out.toByteArray();
        Files.write(file, damaged);
        JournalCorruptedException refused = catchThrowableOfType(JournalCorruptedException.class,
                () -> Journal.open(pool, file, T).close());
        assertThat(refused).isNotNull();
        assertThat(Files.readAllBytes(file)).isEqualTo(damaged);
        try (Journal j = Journal.open(pool, file, T, JournalRecovery.REPAIR)) {
            assertThat(j.replayed()).containsExactlyElementsOf(WRITTEN);
            JournalRepairReport report = j.recovery().repair();
            assertThat(report.keptRecords()).isEqualTo(WRITTEN.size());
            assertThat(report.droppedBytes()).isEqualTo(damaged.length - pristine.length);
        }
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).containsExactlyElementsOf(WRITTEN);
        }
    }

    // ------------------------------------------------------------------ format 1

    @Test
    void aFormatOneJournalIsReadAndRewrittenInFormatTwo() throws Exception {
        Path file = dir.resolve("journal.log");
        byte[] v1 = LegacyJournal.bytes(WRITTEN);
        Files.write(file, v1);
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).containsExactlyElementsOf(WRITTEN);
            append(j, new Change.CreateBoard("b2", "format two")).join(T);
        }
        assertThat(Files.readAllBytes(file)).startsWith(JournalCodec.fileHeader());
        Path old = only("journal.log.format1-");
        assertThat(Files.readAllBytes(old)).isEqualTo(v1);
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).hasSize(WRITTEN.size() + 1).startsWith(WRITTEN.toArray(Change[]::new));
        }
    }

    @Test
    void aFormatOneJournalWithATornTailIsCutKeptAndRewritten() throws Exception {
        Path file = dir.resolve("journal.log");
        byte[] v1 = LegacyJournal.bytes(WRITTEN);
        int lastStart = v1.length - LegacyJournal.record(WRITTEN.getLast()).length;
        byte[] torn = slice(v1, 0, v1.length - 5);
        Files.write(file, torn);
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).containsExactlyElementsOf(WRITTEN.subList(0, WRITTEN.size() - 1));
            assertThat(j.recovery().tornBytes()).isEqualTo(torn.length - lastStart);
            assertThat(Files.readAllBytes(j.recovery().tornTailCopy())).isEqualTo(slice(torn, lastStart, torn.length));
        }
    }

    @Test
    void aFormatOneJournalDamagedInTheMiddleIsRefusedThenRepaired() throws Exception {
        Path file = dir.resolve("journal.log");
        byte[] v1 = LegacyJournal.bytes(WRITTEN);
        int at = 0;
        for (int i = 0; i < 500; i++) {
            at += LegacyJournal.record(WRITTEN.get(i)).length;
        }
        int next = at + LegacyJournal.record(WRITTEN.get(500)).length;
        // The high byte of record #500's length: it now claims 1 GB, so it looks like a tail.
        for (int position : new int[] {at + 3, at, at + 5, at + 12, next - 1}) {
            clean();
            byte[] damaged = v1.clone();
            damaged[position] ^= 0x40;
            Files.write(file, damaged);
            JournalCorruptedException refused = catchThrowableOfType(JournalCorruptedException.class,
                    () -> Journal.open(pool, file, T).close());
            assertThat(refused).as("flip at %d", position).isNotNull()
                    .hasMessageContaining("damaged at offset " + at + " (record #500");
            assertThat(Files.readAllBytes(file)).isEqualTo(damaged);
            assertThat(refused.firstDamage().length()).isEqualTo(next - at);
            List<Change> intact = new ArrayList<>(WRITTEN);
            intact.remove(500);
            try (Journal j = Journal.open(pool, file, T, JournalRecovery.REPAIR)) {
                assertThat(j.replayed()).containsExactlyElementsOf(intact);
                assertThat(Files.readAllBytes(j.recovery().repair().damagedCopy())).isEqualTo(damaged);
            }
            assertThat(Files.readAllBytes(file)).startsWith(JournalCodec.fileHeader());
        }
    }

    // ------------------------------------------------------------------ helpers

    /** The record holding byte {@code position}, or -1 for the file header. */
    private static int recordAt(int position) {
        for (int r = WRITTEN.size() - 1; r >= 0; r--) {
            if (position >= OFFSETS.get(r)) {
                return r;
            }
        }
        return -1;
    }

    private void clean() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.toList()) {
                Files.delete(p);
            }
        }
    }

    private List<String> siblings() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private Path only(String prefix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> found = files.filter(p -> p.getFileName().toString().startsWith(prefix)).toList();
            assertThat(found).as("files named %s*", prefix).hasSize(1);
            return found.getFirst();
        }
    }

    private static byte[] slice(byte[] data, int from, int to) {
        return java.util.Arrays.copyOfRange(data, from, to);
    }
}
