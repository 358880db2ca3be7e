package dev.corobridge.demo.journal;

import static dev.corobridge.demo.journal.TestAppends.append;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.corobridge.demo.board.Change;
import dev.corobridge.ring.RingPool;

/**
 * One journal per file: a second {@link Journal#open} of a file that an open journal holds is
 * refused with {@link JournalInUseException} before anything is read or changed, however the path
 * is spelled; the claim ends with {@link Journal#close} and with a failed open. (Another process's
 * claim: the integration test of two services on one data directory.)
 */
class JournalLockTest extends JournalFixture {

    JournalLockTest(RingPool pool) {
        super(pool);
    }

    @Test
    void aSecondJournalOnTheSameFileIsRefusedUntilTheFirstCloses() throws Exception {
        Path file = dir.resolve("journal.log");
        try (Journal first = Journal.open(pool, file, T)) {
            append(first, new Change.CreateBoard("b1", "first")).join(T);
            byte[] before = Files.readAllBytes(file);

            assertThatThrownBy(() -> Journal.open(pool, file, T))
                    .isInstanceOfSatisfying(JournalInUseException.class, e -> {
                        assertThat(e.path()).isEqualTo(file);
                        assertThat(e.holderPid()).hasValue(ProcessHandle.current().pid());
                    })
                    .hasMessageContaining(file.toAbsolutePath().toString())
                    .hasMessageContaining("in use by this process")
                    .hasMessageContaining("would overwrite each other's changes");
            assertThat(Files.readAllBytes(file)).as("the refused open changed nothing").isEqualTo(before);

            // The first journal is untouched by the refusal and goes on.
            append(first, new Change.CreateBoard("b2", "still first")).join(T);
        }
        try (Journal again = Journal.open(pool, file, T)) {
            assertThat(again.replayed()).extracting(c -> ((Change.CreateBoard) c).boardId()).containsExactly("b1", "b2");
        }
    }

    @Test
    void theClaimHoldsHoweverThePathIsSpelled() throws Exception {
        Path file = dir.resolve("journal.log");
        Files.createDirectories(dir.resolve("sub"));
        Path link = Files.createSymbolicLink(dir.resolve("link"), dir);
        try (Journal first = Journal.open(pool, file, T)) {
            for (Path other : List.of(dir.resolve("sub/../journal.log"), dir.resolve("./journal.log"),
                    link.resolve("journal.log"))) {
                assertThatThrownBy(() -> Journal.open(pool, other, T)).as(other.toString())
                        .isInstanceOf(JournalInUseException.class);
            }
        }
    }

    @Test
    void journalsOfOtherFilesAreIndependent() throws Exception {
        try (Journal a = Journal.open(pool, dir.resolve("a.log"), T);
             Journal b = Journal.open(pool, dir.resolve("b.log"), T)) {
            append(a, new Change.CreateBoard("a1", "a")).join(T);
            append(b, new Change.CreateBoard("b1", "b")).join(T);
        }
    }

    @Test
    void theLockFileNamesTheHolder() throws Exception {
        Path file = dir.resolve("journal.log");
        try (Journal j = Journal.open(pool, file, T)) {
            assertThat(Files.readString(dir.resolve("journal.log.lock"), StandardCharsets.US_ASCII).trim())
                    .isEqualTo(Long.toString(ProcessHandle.current().pid()));
        }
    }

    @Test
    void aFailedOpenLeavesNoClaim() throws Exception {
        Path file = dir.resolve("journal.log");
        try (Journal j = Journal.open(pool, file, T)) {
            for (String b : List.of("b1", "b2", "b3")) {
                append(j, new Change.CreateBoard(b, "board " + b)).join(T);
            }
        }
        byte[] bytes = Files.readAllBytes(file);
        bytes[JournalCodec.FILE_HEADER + 8] ^= 0x40; // inside the first record: intact ones follow
        Files.write(file, bytes);
        assertThatThrownBy(() -> Journal.open(pool, file, T)).isInstanceOf(JournalCorruptedException.class);
        try (Journal repaired = Journal.open(pool, file, T, JournalRecovery.REPAIR)) {
            assertThat(repaired.replayed()).hasSize(2);
        }
    }

    @Test
    void closingTwiceReleasesOnce() throws Exception {
        Path file = dir.resolve("journal.log");
        Journal j = Journal.open(pool, file, T);
        j.close();
        j.close();
        try (Journal again = Journal.open(pool, file, T)) {
            assertThatThrownBy(() -> Journal.open(pool, file, T)).isInstanceOf(JournalInUseException.class);
        }
    }
}
