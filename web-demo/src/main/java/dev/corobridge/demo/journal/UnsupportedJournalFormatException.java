package dev.corobridge.demo.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The journal file names a format this code cannot read (written by a newer version): the file is
 * left alone, and only a version that reads it can start on it.
 */
public final class UnsupportedJournalFormatException extends IOException {

    private final int format;
    private final int newest;
    /** The file, when known ({@code null} from {@link JournalScan#of}, which sees only bytes). */
    private final transient Path path;

    UnsupportedJournalFormatException(int format, int newest) {
        this(format, newest, null);
    }

    private UnsupportedJournalFormatException(int format, int newest, Path path) {
        super("the journal" + (path == null ? "" : " " + path.toAbsolutePath()) + " is in format "
                + Integer.toUnsignedString(format) + "; this version reads formats 1 to " + newest
                + " (the file was left untouched)");
        this.format = format;
        this.newest = newest;
        this.path = path;
    }

    /** The same refusal, naming the file. */
    UnsupportedJournalFormatException at(Path file) {
        UnsupportedJournalFormatException e = new UnsupportedJournalFormatException(format, newest, file);
        e.initCause(this);
        return e;
    }

    /** The format the file names. */
    public int format() {
        return format;
    }

    /** The journal file, when known. */
    public Optional<Path> path() {
        return Optional.ofNullable(path);
    }
}
