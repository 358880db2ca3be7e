package dev.corobridge.demo.snapshot;

import java.nio.file.Path;
import java.util.OptionalLong;

import dev.corobridge.demo.io.FileInUseException;

/**
 * A cluster-mode replica's snapshot is claimed by another replica: another process started on the
 * same data directory, or another replica of this process. Two replicas writing one snapshot
 * replace each other's files mid-write (each writes {@code boards.snapshot.tmp} and renames it), so
 * the second refuses to start before it reads or writes anything. The message names the file and,
 * when the holder wrote it down, the holder's process id.
 */
public final class SnapshotInUseException extends FileInUseException {

    private static final long serialVersionUID = 1L;

    public SnapshotInUseException(Path path, OptionalLong holderPid) {
        super("the snapshot", path, holderPid, "another replica on the same file",
                "two replicas on one data directory would replace each other's snapshots");
    }
}
