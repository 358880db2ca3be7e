package dev.corobridge.demo.journal;

import java.nio.file.Path;

import dev.corobridge.demo.changelog.ChangeLogClosedException;

/**
 * An append the journal did not take because it is closing or closed, or its ring has shut down:
 * the change was not acknowledged. Distinct from a failed journal (a write or {@code fdatasync}
 * error turns the journal broken; see {@link Journal#isBroken()}): a closed journal is healthy, it
 * just takes nothing more.
 */
public final class JournalClosedException extends ChangeLogClosedException {

    private final Path path;

    JournalClosedException(Path path, String detail) {
        super("the journal " + path.toAbsolutePath() + " " + detail);
        this.path = path;
    }

    JournalClosedException(Path path, String detail, Throwable cause) {
        this(path, detail);
        initCause(cause);
    }

    /** The journal file. */
    public Path path() {
        return path;
    }
}
