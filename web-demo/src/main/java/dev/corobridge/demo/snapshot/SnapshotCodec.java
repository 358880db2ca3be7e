package dev.corobridge.demo.snapshot;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;

import dev.corobridge.demo.board.BoardState;
import dev.corobridge.demo.board.Note;
import dev.corobridge.demo.changelog.LogPosition;

/**
 * The bytes of a {@link BoardsSnapshot}: a 24-byte header, then the body.
 *
 * <pre>
 * header: magic "\xFEcbSnap\x00" (8) | format (4, big-endian) | body length (8) | CRC32C of the body (4)
 * body:   topic (UTF) | partitions (int) { partition (int) offset (long) }
 *         | boards (int) { id, name (UTF) | revision, notesAdded (long) | notes (int) { id, text (UTF) | version (long) } }
 * </pre>
 *
 * {@link #decode} checks everything before it trusts anything: magic, format, length, checksum, and
 * that the body parses to its last byte with values in range. Stateless.
 */
public final class SnapshotCodec {

    /** The format this code writes and reads. */
    public static final int FORMAT = 1;
    static final int HEADER = 24;
    private static final byte[] MAGIC = {(byte) 0xFE, 'c', 'b', 'S', 'n', 'a', 'p', 0};

    private SnapshotCodec() {
    }

    /** The snapshot's bytes. */
    public static byte[] encode(BoardsSnapshot snapshot) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(4096);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.write(new byte[HEADER]);
            out.writeUTF(snapshot.topic());
            out.writeInt(snapshot.covers().size());
            for (LogPosition p : snapshot.covers()) {
                out.writeInt(p.partition());
                out.writeLong(p.offset());
            }
            out.writeInt(snapshot.boards().size());
            for (BoardState b : snapshot.boards()) {
                out.writeUTF(b.id());
                out.writeUTF(b.name());
                out.writeLong(b.revision());
                out.writeLong(b.notesAdded());
                out.writeInt(b.notes().size());
                for (Note n : b.notes()) {
                    out.writeUTF(n.id());
                    out.writeUTF(n.text());
                    out.writeLong(n.version());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen: in memory
        }
        byte[] data = bytes.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(data, HEADER, data.length - HEADER);
        ByteBuffer.wrap(data).put(MAGIC).putInt(FORMAT).putLong(data.length - HEADER).putInt((int) crc.getValue());
        return data;
    }

    /**
     * The snapshot in {@code data}.
     *
     * @throws SnapshotDamagedException if the bytes are not an intact snapshot of {@link #FORMAT}
     */
    public static BoardsSnapshot decode(byte[] data) throws SnapshotDamagedException {
        if (data.length < HEADER || !Arrays.equals(data, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new SnapshotDamagedException("not a snapshot (no snapshot header)");
        }
        ByteBuffer h = ByteBuffer.wrap(data, MAGIC.length, HEADER - MAGIC.length);
        int format = h.getInt();
        long length = h.getLong();
        int expectedCrc = h.getInt();
        if (format != FORMAT) {
            throw new SnapshotDamagedException("snapshot format " + format + " is not the format this version reads ("
                    + FORMAT + ")");
        }
        if (length != data.length - HEADER) {
            throw new SnapshotDamagedException("the snapshot's body is " + (data.length - HEADER)
                    + " bytes, its header says " + length + " (cut short or grown)");
        }
        CRC32C crc = new CRC32C();
        crc.update(data, HEADER, data.length - HEADER);
        if ((int) crc.getValue() != expectedCrc) {
            throw new SnapshotDamagedException("the snapshot's checksum does not match its body");
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data, HEADER, data.length - HEADER))) {
            String topic = in.readUTF();
            int partitions = count(in.readInt(), 1 << 16, "partitions");
            List<LogPosition> covers = new ArrayList<>(partitions);
            for (int i = 0; i < partitions; i++) {
                covers.add(new LogPosition(in.readInt(), in.readLong()));
            }
            int boards = count(in.readInt(), 1 << 20, "boards");
            List<BoardState> states = new ArrayList<>(boards);
            for (int i = 0; i < boards; i++) {
                String id = in.readUTF();
                String name = in.readUTF();
                long revision = in.readLong();
                long notesAdded = in.readLong();
                int notes = count(in.readInt(), 1 << 20, "notes");
                List<Note> ns = new ArrayList<>(notes);
                for (int j = 0; j < notes; j++) {
                    ns.add(new Note(in.readUTF(), id, in.readUTF(), in.readLong()));
                }
                states.add(new BoardState(id, name, revision, notesAdded, ns));
            }
            if (in.available() != 0) {
                throw new SnapshotDamagedException("the snapshot has " + in.available() + " bytes after its last board");
            }
            return new BoardsSnapshot(topic, covers, states);
        } catch (IOException | IllegalArgumentException e) {
            throw e instanceof SnapshotDamagedException d ? d
                    : new SnapshotDamagedException("the snapshot's body does not parse: " + e.getMessage(), e);
        }
    }

    private static int count(int n, int max, String what) throws SnapshotDamagedException {
        if (n < 0 || n > max) {
            throw new SnapshotDamagedException("the snapshot claims " + n + " " + what);
        }
        return n;
    }
}
