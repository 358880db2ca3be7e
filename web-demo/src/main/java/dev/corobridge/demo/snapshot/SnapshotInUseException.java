package dev.corobridge.demo.snapshot;

import java.io.IOException;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * A cluster-mode replica's snapshot is claimed by another replica: another process started on the
 * same data directory, or another replica of this process. Two replicas writing one snapshot
 * replace each other's files mid-write (each writes {@code boards.snapshot.tmp} and renames it), so
 * the second refuses to start before it reads or writes anything. The message names the file and,
 * when the holder wrote it down, the holder's process id.
 */
public final class SnapshotInUseException extends IOException {

    private static final long serialVersionUID = 1L;

    private final transient Path path;
    private final long holderPid;

    public SnapshotInUseException(Path path, OptionalLong holderPid) {
        super("the snapshot " + path.toAbsolutePath() + " is in use by "
                + (holderPid.isEmpty() ? "another process"
                        : holderPid.getAsLong() == ProcessHandle.current().pid() ? "this process (another replica on the same file)"
                        : "another process (pid " + holderPid.getAsLong() + ")")
                + ": two replicas on one data directory would replace each other's snapshots");
        this.path = path;
        this.holderPid = holderPid.orElse(-1);
    }

    /** The snapshot file that is in use. */
    public Path path() {
        return path;
    }

    /** The holder's process id, when it could be read. */
    public OptionalLong holderPid() {
        return holderPid < 0 ? OptionalLong.empty() : OptionalLong.of(holderPid);
    }
}
