package dev.corobridge.demo.journal;

import java.io.IOException;

/**
 * The journal file names a format this code cannot read (written by a newer version): the file is
 * left alone, and only a version that reads it can start on it.
 */
public final class UnsupportedJournalFormatException extends IOException {

    private final int format;

    UnsupportedJournalFormatException(int format, int newest) {
        super("the journal is in format " + Integer.toUnsignedString(format) + "; this version reads formats 1 to "
                + newest + " (the file was left untouched)");
        this.format = format;
    }

    /** The format the file names. */
    public int format() {
        return format;
    }
}
