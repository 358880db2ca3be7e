package dev.corobridge.demo.journal;

import static dev.corobridge.demo.journal.TestAppends.append;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.io.FileClaim;
import dev.corobridge.ring.RingPool;

/**
 * The journal acknowledges a change only while its file is the one at its path and its claim's lock
 * file is its own. A journal file removed, moved or replaced while the service ran took the
 * acknowledged changes with it into a file nobody reads, and a removed lock file let a second
 * service claim the directory and write over the first: the writes were acknowledged as usual.
 * Now the first commit after it fails the journal (503, what happened named without a path), as a
 * failed write does, and a restart reads what the path then holds.
 */
class JournalFileReplacedTest extends JournalFixture {

    JournalFileReplacedTest(RingPool pool) {
        super(pool);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"journal removed", "journal replaced by a copy", "journal moved away", "lock file removed"})
    void aCommitAfterTheFilesWereTakenAwayFailsTheJournal(String how) throws Exception {
        Path file = dir.resolve("journal.log");
        try (Journal j = Journal.open(pool, file, T)) {
            append(j, new Change.CreateBoard("b1", "kept")).join(T);
            switch (how) {
                case "journal removed" -> Files.delete(file);
                case "journal replaced by a copy" -> {
                    Path copy = dir.resolve("copy");
                    Files.copy(file, copy);
                    Files.move(copy, file, StandardCopyOption.REPLACE_EXISTING);
                }
                case "journal moved away" -> Files.move(file, dir.resolve("journal.log.moved"));
                default -> Files.delete(FileClaim.lockFileOf(file));
            }
            Throwable refused = catchThrowable(() -> append(j, new Change.CreateBoard("b2", "after")).join(T));
            assertThat(refused).isInstanceOfSatisfying(BoardException.class,
                    e -> assertThat(e.kind()).isEqualTo(BoardException.Kind.UNAVAILABLE));
            assertThat(refused.getMessage()).contains("removed or replaced").doesNotContain(dir.toString());
            Throwable again = catchThrowable(() -> append(j, new Change.CreateBoard("b3", "later")).join(T));
            assertThat(again).as("the journal stays failed").isInstanceOf(BoardException.class);
        }
    }
}
