package dev.corobridge.demo.journal;

import java.io.IOException;
import java.nio.file.Path;

/**
 * {@link Journal#open} found the journal needing a change before it can be used (a torn tail to
 * keep aside and cut, a format-1 file to rewrite, a repair, a new file's header) and could not make
 * it: most often the disk is full. Every step of that file surgery is made so that a failure leaves
 * the journal as it was and no partial file beside it, so the start can simply be tried again once
 * the cause is gone (space freed). The message names the file, the step and the kernel's reason;
 * the cause is the I/O failure.
 */
public final class JournalMendingException extends IOException {

    private final transient Path path;
    private final String step;

    JournalMendingException(Path path, String step, IOException cause) {
        super("the journal " + path.toAbsolutePath() + " needs a change before it can be used, and it failed: " + step
                + ": " + reason(cause) + "; the journal was left as it was", cause);
        this.path = path;
        this.step = step;
    }

    /** The journal's file. */
    public Path path() {
        return path;
    }

    /** What could not be done, e.g. "keeping the torn tail (7 bytes at offset 4803) aside". */
    public String step() {
        return step;
    }

    private static String reason(IOException cause) {
        String m = cause.getMessage();
        return m == null || m.isBlank() ? cause.getClass().getSimpleName() : m;
    }
}
