package dev.corobridge.demo.journal;

import static dev.corobridge.demo.journal.TestAppends.append;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.SmallDisk;
import dev.corobridge.ring.RingPool;

/**
 * A start on a full disk, where the journal must be mended (a torn tail kept aside and cut): the
 * open fails with a {@link JournalMendingException} that names the step and the kernel's reason,
 * the journal is byte for byte as it was, and no partial file is left beside it, so starts retried
 * until space is freed do not pile up empty copies. Once space is freed, the same journal opens
 * and the torn tail is kept and cut as usual.
 *
 * <p>The disk is a 256 KiB tmpfs mounted for the test; where mounting is not allowed (no root, a
 * restricted container) the test is skipped.
 */
class JournalOnAFullDiskTest extends JournalFixture {

    private SmallDisk disk;
    private Path mount;

    JournalOnAFullDiskTest(RingPool pool) {
        super(pool);
    }

    @BeforeEach
    void mountASmallDisk() throws Exception {
        disk = SmallDisk.mount("small-disk", "256k");
        mount = disk.path();
        assumeTrue(disk.mounted(), SmallDisk.NEEDS);
    }

    @AfterEach
    void unmount() throws Exception {
        if (disk != null) {
            disk.close();
        }
    }

    @Test
    void aTornTailThatCannotBeKeptAsideFailsTheStartCleanlyUntilSpaceIsFreed() throws Exception {
        Path file = mount.resolve("journal.log");
        try (Journal j = Journal.open(pool, file, T)) {
            append(j, new Change.CreateBoard("b1", "full disk")).join(T);
            for (int i = 1; i <= 20; i++) {
                append(j, new Change.AddNote("b1", "n" + i, "note " + i + " " + "x".repeat(200))).join(T);
            }
        }
        byte[] whole = Files.readAllBytes(file);
        byte[] torn = Arrays.copyOf(whole, whole.length - 7); // the last write cut short
        Files.write(file, torn);
        Path filler = mount.resolve("filler");
        fill(filler);

        for (int attempt = 0; attempt < 3; attempt++) { // a service restarted in a loop
            Throwable refused = catchThrowable(() -> Journal.open(pool, file, T).close());
            assertThat(refused).isInstanceOf(JournalMendingException.class)
                    .hasMessageContaining("torn tail").hasMessageContaining("No space left on device");
            assertThat(Files.readAllBytes(file)).as("the journal is untouched").isEqualTo(torn);
            assertThat(siblings()).as("nothing left beside the journal but the claim's lock file")
                    .containsExactlyInAnyOrder("journal.log", "journal.log.lock", "filler");
        }

        Files.delete(filler);
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(j.replayed()).hasSize(20); // the last note's record was torn
            assertThat(j.recovery().tornBytes()).isPositive();
            assertThat(j.recovery().tornTailCopy()).exists();
        }
    }

    /**
     * A new journal on a full disk fails its start with the report of the step (its file header),
     * not with the claim's lock file: writing the holder's process id into that file failed with
     * the kernel's ENOSPC and ended the start in a stack trace, with no report. The claim does not
     * need the id (it only names the holder in a refusal); a journal that exists opens.
     */
    @Test
    void aNewJournalOnAFullDiskFailsWithTheReportOfItsStep() throws Exception {
        Path file = mount.resolve("journal.log");
        Path existing = mount.resolve("kept").resolve("journal.log");
        Files.createDirectories(existing.getParent());
        try (Journal j = Journal.open(pool, existing, T)) {
            append(j, new Change.CreateBoard("b1", "kept")).join(T);
        }
        Files.delete(lockFileOf(existing));
        fill(mount.resolve("filler"));

        Throwable refused = catchThrowable(() -> Journal.open(pool, file, T).close());
        assertThat(refused).isInstanceOf(JournalMendingException.class)
                .hasMessageContaining("file header").hasMessageContaining("No space left on device");
        try (Journal j = Journal.open(pool, existing, T)) {
            assertThat(j.replayed()).hasSize(1);
        }
    }

    private static Path lockFileOf(Path file) {
        return dev.corobridge.demo.io.FileClaim.lockFileOf(file);
    }

    private List<String> siblings() throws IOException {
        try (Stream<Path> files = Files.list(mount)) {
            return files.map(p -> p.getFileName().toString()).toList();
        }
    }

    /** Writes {@code filler} until the disk is full. */
    private static void fill(Path filler) throws IOException {
        byte[] block = new byte[4096];
        try (OutputStream out = Files.newOutputStream(filler)) {
            while (true) {
                out.write(block);
            }
        } catch (IOException full) {
            assertThat(full).hasMessageContaining("No space left on device");
        }
        try (OutputStream out = Files.newOutputStream(filler, java.nio.file.StandardOpenOption.APPEND)) {
            for (int i = 0; i < 4096; i++) {
                out.write(0); // the last bytes of the last block
                out.flush();
            }
        } catch (IOException full) {
            // full to the byte
        }
    }
}
