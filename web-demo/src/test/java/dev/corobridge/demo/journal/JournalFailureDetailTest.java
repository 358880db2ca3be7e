package dev.corobridge.demo.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;

import org.junit.jupiter.api.Test;

import dev.corobridge.demo.board.BoardException;
import dev.corobridge.ring.RingIoException;

/**
 * A failed journal refuses changes with a 503 whose detail a client reads: it says what failed in
 * the client's terms (the service cannot store changes, and the kernel's reason), never the server's
 * paths; the full failure, path included, stays in the cause for the log.
 */
class JournalFailureDetailTest {

    @Test
    void aDiskFullJournalNamesTheReasonButNotThePath() {
        RingIoException enospc = new RingIoException("write", "/srv/secret-data-dir/journal.log", 28);
        BoardException refused = GroupCommit.unavailable(enospc);
        assertThat(refused.kind()).isEqualTo(BoardException.Kind.UNAVAILABLE);
        assertThat(refused.getMessage()).doesNotContain("/srv").doesNotContain("journal.log")
                .contains("ENOSPC").contains("cannot store changes");
        assertThat(refused.getCause()).isSameAs(enospc);
    }

    @Test
    void aFailureWithoutAnErrnoNamesNoInternals() {
        BoardException refused = GroupCommit.unavailable(new IOException("/srv/secret-data-dir/journal.log: disk quota"));
        assertThat(refused.getMessage()).doesNotContain("/srv").contains("cannot store changes");
    }
}
