package dev.corobridge.demo.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * A file of the data directory is claimed by someone else ({@link FileClaim}): another process, or
 * another user of the same file in this process. The message names the file, the holder (its
 * process id when it wrote it down) and what two users would do to each other; the subclasses say
 * which file it is.
 */
public abstract class FileInUseException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient Path path;
    private final long holderPid;

    /**
     * @param what        the file's role, e.g. "the journal"
     * @param path        the file
     * @param holderPid   the holder's process id, if it could be read
     * @param sameProcess who holds it when the holder is this process, e.g. "another journal on the same file"
     * @param harm        what two users would do, e.g. "two services on one data directory would ..."
     */
    protected FileInUseException(String what, Path path, OptionalLong holderPid, String sameProcess, String harm) {
        super(what + " " + path.toAbsolutePath() + " is in use by "
                + (holderPid.isEmpty() ? "another process"
                        : holderPid.getAsLong() == ProcessHandle.current().pid() ? "this process (" + sameProcess + ")"
                        : "another process (pid " + holderPid.getAsLong() + ")")
                + ": " + harm);
        this.path = path;
        this.holderPid = holderPid.orElse(-1);
    }

    /** The file that is in use. */
    public Path path() {
        return path;
    }

    /** The holder's process id, when it could be read. */
    public OptionalLong holderPid() {
        return holderPid < 0 ? OptionalLong.empty() : OptionalLong.of(holderPid);
    }
}
