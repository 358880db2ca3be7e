package dev.corobridge.demo.snapshot;

import static dev.corobridge.demo.io.BoundedIo.await;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingPool;

/**
 * A replica's snapshot file, read and written through the ring pool (io_uring where available).
 *
 * <p><b>Write.</b> The bytes go to {@code <file>.tmp} (created afresh), are {@code fdatasync}'ed,
 * and the file is closed; then an atomic rename puts it in place and the directory is
 * {@code fsync}'ed. At any crash point the name holds the old snapshot or the new one, whole.
 *
 * <p><b>Read.</b> A missing file is no snapshot; a file that is not an intact snapshot
 * ({@link SnapshotCodec#decode}) is not trusted: a WARN line names the damage and the replica
 * replays the log from its beginning (the file is left for an operator, and replaced by the next
 * snapshot).
 *
 * <p>Blocking: call it from a thread that may wait (start-up, the snapshot writer), never from the
 * pump or a ring. Stateless; one writer per file at a time.
 */
public final class SnapshotFile {

    private static final Log LOG = LogFactory.getLog(SnapshotFile.class);
    /** Largest snapshot read. */
    public static final long MAX_BYTES = 1L << 30;

    private SnapshotFile() {
    }

    /** Writes {@code snapshot} to {@code path} (see the class comment). */
    public static void write(RingPool pool, Path path, BoardsSnapshot snapshot, Duration timeout) throws IOException {
        byte[] data = SnapshotCodec.encode(snapshot);
        Path dir = path.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        RingFile file = await(pool.openAsync(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), timeout,
                "open " + tmp);
        try {
            ByteBuffer buf = ByteBuffer.allocateDirect(data.length).put(data).flip();
            await(file.writeFullyAsync(buf, 0), timeout, "write " + tmp);
            await(file.fdatasyncAsync(), timeout, "fdatasync " + tmp);
        } finally {
            await(file.closeAsync(), timeout, "close " + tmp);
        }
        Files.move(tmp, path, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }

    /** The snapshot at {@code path}; empty when there is none or it is damaged (WARN). */
    public static Optional<BoardsSnapshot> read(RingPool pool, Path path, Duration timeout) throws IOException {
        RingFile file;
        try {
            file = await(pool.openAsync(path, StandardOpenOption.READ), timeout, "open " + path);
        } catch (IOException e) {
            if (!Files.exists(path)) {
                return Optional.empty();
            }
            throw e;
        }
        byte[] data;
        try {
            long size = await(file.sizeAsync(), timeout, "size of " + path);
            if (size > MAX_BYTES) {
                LOG.warn("Snapshot: " + path.toAbsolutePath() + " is " + size + " bytes, more than " + MAX_BYTES
                        + "; ignored, replaying the log from its beginning");
                return Optional.empty();
            }
            data = new byte[(int) size];
            ByteBuffer buf = ByteBuffer.allocateDirect((int) Math.max(1, size));
            buf.limit((int) size);
            int n = size == 0 ? 0 : await(file.readFullyAsync(buf, 0), timeout, "read " + path);
            buf.flip().get(data, 0, Math.min(n, data.length));
        } finally {
            await(file.closeAsync(), timeout, "close " + path);
        }
        try {
            return Optional.of(SnapshotCodec.decode(data));
        } catch (SnapshotDamagedException e) {
            LOG.warn("Snapshot: " + path.toAbsolutePath() + " is not used (" + e.getMessage()
                    + "); replaying the log from its beginning");
            return Optional.empty();
        }
    }

}
