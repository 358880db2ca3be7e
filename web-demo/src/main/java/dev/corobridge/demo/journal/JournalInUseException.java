package dev.corobridge.demo.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * The journal is held by another {@link Journal}: another process (a second service started on the
 * same data directory), or another journal of this process on the same file. Two journals appending
 * to one file, each at the offsets it believes free, would overwrite each other's acknowledged
 * changes, so {@link Journal#open} refuses before it reads or changes anything. The message names
 * the file and, when the holder wrote it down, the holder's process id.
 */
public final class JournalInUseException extends IOException {

    private final transient Path path;
    private final long holderPid;

    JournalInUseException(Path path, OptionalLong holderPid) {
        super("the journal " + path.toAbsolutePath() + " is in use by "
                + (holderPid.isEmpty() ? "another process"
                        : holderPid.getAsLong() == ProcessHandle.current().pid() ? "this process (another journal on the same file)"
                        : "another process (pid " + holderPid.getAsLong() + ")")
                + ": two services on one data directory would overwrite each other's changes");
        this.path = path;
        this.holderPid = holderPid.orElse(-1);
    }

    /** The journal file that is in use. */
    public Path path() {
        return path;
    }

    /** The holder's process id, when it could be read. */
    public OptionalLong holderPid() {
        return holderPid < 0 ? OptionalLong.empty() : OptionalLong.of(holderPid);
    }
}
