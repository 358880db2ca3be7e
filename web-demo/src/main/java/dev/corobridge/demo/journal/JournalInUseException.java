package dev.corobridge.demo.journal;

import java.nio.file.Path;
import java.util.OptionalLong;

import dev.corobridge.demo.io.FileInUseException;

/**
 * The journal is held by another {@link Journal}: another process (a second service started on the
 * same data directory), or another journal of this process on the same file. Two journals appending
 * to one file, each at the offsets it believes free, would overwrite each other's acknowledged
 * changes, so {@link Journal#open} refuses before it reads or changes anything. The message names
 * the file and, when the holder wrote it down, the holder's process id.
 */
public final class JournalInUseException extends FileInUseException {

    private static final long serialVersionUID = 1L;

    JournalInUseException(Path path, OptionalLong holderPid) {
        super("the journal", path, holderPid, "another journal on the same file",
                "two services on one data directory would overwrite each other's changes");
    }
}
