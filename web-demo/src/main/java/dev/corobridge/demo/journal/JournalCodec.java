package dev.corobridge.demo.journal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.zip.CRC32C;

import dev.corobridge.demo.board.Change;

/**
 * The journal's byte format, stateless and thread-safe: how a file starts, how a record is laid
 * out, and whether the bytes at an offset are one intact record. {@link JournalScan} walks a
 * whole file with it.
 *
 * <h2>Format 2 (written now)</h2>
 * <pre>
 *   file    = file-header record*
 *   file-header (16 bytes) = magic "\xFEcbJourn" | format:u32 LE (2) | crc32c(magic, format):u32 LE
 *   record  = header (32 bytes) | payload[length]
 *   header  = marker "\xFErec"     4 bytes: where a record may start
 *           | length:u32           payload bytes, 1..{@link #MAX_PAYLOAD}
 *           | number:u64           record number: 0 for the file's first record, +1 for each next
 *           | commitIndex:u32      position within its commit (0 = the commit's first record)
 *           | flags:u32            bit 0: last record of its commit; no other bit is set
 *           | crc32c(payload):u32
 *           | crc32c(header bytes 0..27):u32
 *   payload = version:u8 (1) | kind:u8 | fields (modified UTF-8 strings, int64 versions)
 * </pre>
 * All integers little-endian. A record is intact when its header checksum matches (so length,
 * number and commit position are trustworthy), the payload is complete, its checksum matches and it
 * parses.
 *
 * <p><b>Why these fields.</b> Format 1 ({@code length | crc32c(payload) | payload}, no file
 * header) cannot tell a torn tail from damage in the middle: after a bad record nothing says where
 * the next one starts (a flipped bit in a length points anywhere), and nothing says which records a
 * commit wrote. Format 2 adds what that decision needs:
 * <ul>
 *   <li>The <b>marker</b> makes resynchronisation cheap and safe: after damage the reader tries only
 *       offsets holding the marker. Its first byte, {@code 0xFE}, and the zero bytes every header
 *       holds never occur in a string's modified UTF-8 bytes, so no note text can spell a record
 *       that a resynchronising reader would take for one.</li>
 *   <li>The <b>header checksum</b> covers the length, so a flipped length bit is detected at once
 *       instead of sending the reader to a wrong offset, and a false marker inside a payload is
 *       rejected in O(1) (and by the payload checksum as well).</li>
 *   <li>The <b>record number</b> says exactly which records a damaged region held (those between
 *       the intact numbers around it), and exposes a missing or repeated record.</li>
 *   <li>The <b>commit position and flag</b> say where each commit (one write plus one
 *       {@code fdatasync}) starts and ends. A commit is written only after the one before it is
 *       durable, so damage followed by an intact record of a later or a completed commit cannot be
 *       a torn write: it is corruption.</li>
 * </ul>
 *
 * <h2>Format 1 (read, then converted)</h2>
 * <pre>
 *   record  = length:int32 LE | crc32c(payload):int32 LE | payload[length]
 * </pre>
 * A file that does not start with the format-2 magic is format 1; it is read with
 * {@link #legacyRecordAt}, and {@link Journal#open} rewrites it in format 2.
 */
public final class JournalCodec {

    /** Bytes of the file header. */
    public static final int FILE_HEADER = 16;
    /** Bytes of a record header. */
    public static final int HEADER = 32;
    /** Bytes of a format-1 record header. */
    public static final int LEGACY_HEADER = 8;
    /** Largest payload accepted (a note is at most 2000 chars). */
    public static final int MAX_PAYLOAD = 64 * 1024;
    /** The format this codec writes. */
    public static final int FORMAT = 2;

    static final byte[] FILE_MAGIC = {(byte) 0xFE, 'c', 'b', 'J', 'o', 'u', 'r', 'n'};
    static final byte[] RECORD_MARKER = {(byte) 0xFE, 'r', 'e', 'c'};
    /** Flag: the record is the last of its commit. */
    static final int LAST_IN_COMMIT = 1;

    private static final int PAYLOAD_VERSION = 1;
    private static final int CREATE_BOARD = 1;
    private static final int ADD_NOTE = 2;
    private static final int EDIT_NOTE = 3;
    private static final int DELETE_NOTE = 4;

    private JournalCodec() {
    }

    // ------------------------------------------------------------------ writing

    /** The 16-byte file header of format 2. */
    public static byte[] fileHeader() {
        ByteBuffer b = ByteBuffer.allocate(FILE_HEADER).order(ByteOrder.LITTLE_ENDIAN);
        b.put(FILE_MAGIC).putInt(FORMAT);
        b.putInt(crc(b.array(), 0, 12));
        return b.array();
    }

    /**
     * One change as a record payload.
     *
     * @throws IllegalArgumentException if it is larger than {@link #MAX_PAYLOAD}
     */
    public static byte[] payload(Change change) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(PAYLOAD_VERSION);
            switch (change) {
                case Change.CreateBoard c -> strings(out, CREATE_BOARD, c.boardId(), c.name());
                case Change.AddNote c -> strings(out, ADD_NOTE, c.boardId(), c.noteId(), c.text());
                case Change.EditNote c ->
                        strings(out, EDIT_NOTE, c.boardId(), c.noteId(), c.text()).writeLong(c.expectedVersion());
                case Change.DeleteNote c -> strings(out, DELETE_NOTE, c.boardId(), c.noteId()).writeLong(c.expectedVersion());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen: in memory
        }
        byte[] payload = bytes.toByteArray();
        if (payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("change too large for the journal: " + payload.length + " bytes");
        }
        return payload;
    }

    /** Writes a payload's kind, then its strings in order; returns {@code out} for the fields after them. */
    private static DataOutputStream strings(DataOutputStream out, int kind, String... strings) throws IOException {
        out.writeByte(kind);
        for (String s : strings) {
            out.writeUTF(s);
        }
        return out;
    }

    /** CRC32C of {@code length} bytes of {@code data} from {@code offset}. */
    public static int crc(byte[] data, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(data, offset, length);
        return (int) crc.getValue();
    }

    /**
     * Writes one record (header and payload) at {@code dst}'s position.
     *
     * @param payloadCrc  {@link #crc} of the whole payload
     * @param number      the record number
     * @param commitIndex the record's position within its commit
     * @param last        whether it is the commit's last record
     */
    public static void putRecord(ByteBuffer dst, byte[] payload, int payloadCrc, long number, int commitIndex,
                                 boolean last) {
        if (payload.length == 0 || payload.length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload of " + payload.length + " bytes");
        }
        if (number < 0 || commitIndex < 0) {
            throw new IllegalArgumentException("record number " + number + ", commit index " + commitIndex);
        }
        byte[] header = new byte[HEADER];
        ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        h.put(RECORD_MARKER).putInt(payload.length).putLong(number).putInt(commitIndex)
                .putInt(last ? LAST_IN_COMMIT : 0).putInt(payloadCrc);
        h.putInt(crc(header, 0, HEADER - 4));
        dst.put(header).put(payload);
    }

    // ------------------------------------------------------------------ reading

    /** Whether {@code data} starts with an intact format-2 file header (of any format number). */
    static boolean hasFileHeader(byte[] data, int limit) {
        return limit >= FILE_HEADER && startsWith(data, 0, limit, FILE_MAGIC)
                && le32(data, 12) == crc(data, 0, 12);
    }

    /** The format number in an intact file header. */
    static int fileFormat(byte[] data) {
        return le32(data, 8);
    }

    /** Whether the first {@code limit} bytes of {@code data} are the start of a format-2 file header. */
    static boolean isFileHeaderPrefix(byte[] data, int limit) {
        return limit < FILE_HEADER && Arrays.equals(data, 0, limit, fileHeader(), 0, limit);
    }

    /** Whether {@code data} holds {@code marker} at {@code at}, within {@code limit}. */
    static boolean startsWith(byte[] data, int at, int limit, byte[] marker) {
        return limit - at >= marker.length && Arrays.equals(data, at, at + marker.length, marker, 0, marker.length);
    }

    /**
     * The format-2 record at {@code at}, or why there is none.
     *
     * @param limit how many bytes of {@code data} are the file
     */
    static Read recordAt(byte[] data, int at, int limit) {
        if (limit - at < HEADER) {
            return new Read.Bad(limit - at >= RECORD_MARKER.length && startsWith(data, at, limit, RECORD_MARKER)
                    ? "incomplete record header" : "no record header");
        }
        if (!startsWith(data, at, limit, RECORD_MARKER)) {
            return new Read.Bad("no record marker");
        }
        if (le32(data, at + HEADER - 4) != crc(data, at, HEADER - 4)) {
            return new Read.Bad("record header checksum mismatch");
        }
        int length = le32(data, at + 4);
        long number = le64(data, at + 8);
        int commitIndex = le32(data, at + 16);
        int flags = le32(data, at + 20);
        if (length <= 0 || length > MAX_PAYLOAD || number < 0 || commitIndex < 0 || (flags & ~LAST_IN_COMMIT) != 0) {
            return new Read.Bad("record header out of range (length " + Integer.toUnsignedString(length) + ")");
        }
        if (length > limit - at - HEADER) {
            return new Read.Bad("incomplete record (" + length + " payload bytes, " + (limit - at - HEADER)
                    + " present)");
        }
        if (le32(data, at + 24) != crc(data, at + HEADER, length)) {
            return new Read.Bad("payload checksum mismatch");
        }
        Change change = decodePayload(data, at + HEADER, length);
        if (change == null) {
            return new Read.Bad("payload does not parse");
        }
        return new Read.Record(HEADER + length, number, commitIndex, (flags & LAST_IN_COMMIT) != 0, change);
    }

    /** The format-1 record at {@code at}, or why there is none. */
    static Read legacyRecordAt(byte[] data, int at, int limit) {
        if (limit - at < LEGACY_HEADER) {
            return new Read.Bad("incomplete record header");
        }
        int length = le32(data, at);
        if (length <= 0 || length > MAX_PAYLOAD) {
            return new Read.Bad("record length out of range (" + Integer.toUnsignedString(length) + ")");
        }
        if (length > limit - at - LEGACY_HEADER) {
            return new Read.Bad("incomplete record (" + length + " payload bytes, " + (limit - at - LEGACY_HEADER)
                    + " present)");
        }
        // Cheap test before the checksum: a scan for the next record calls this at every offset.
        if (length < 2 || (data[at + LEGACY_HEADER] & 0xFF) != PAYLOAD_VERSION
                || (data[at + LEGACY_HEADER + 1] & 0xFF) < CREATE_BOARD || (data[at + LEGACY_HEADER + 1] & 0xFF) > DELETE_NOTE) {
            return new Read.Bad("not a record payload");
        }
        if (le32(data, at + 4) != crc(data, at + LEGACY_HEADER, length)) {
            return new Read.Bad("payload checksum mismatch");
        }
        Change change = decodePayload(data, at + LEGACY_HEADER, length);
        if (change == null) {
            return new Read.Bad("payload does not parse");
        }
        return new Read.Record(LEGACY_HEADER + length, -1, 0, true, change);
    }

    /** What is at an offset: an intact record, or why not. */
    sealed interface Read {

        /**
         * An intact record.
         *
         * @param size        bytes of header and payload
         * @param number      its record number ({@code -1} in format 1, which has none)
         * @param commitIndex its position within its commit (format 2)
         * @param last        whether it ends its commit (format 2; always {@code true} in format 1)
         */
        record Record(int size, long number, int commitIndex, boolean last, Change change) implements Read {
        }

        /** No intact record, and why. */
        record Bad(String reason) implements Read {
        }
    }

    /**
     * The change a payload made by {@link #payload} holds, or {@code null} if it is not one (unknown
     * version or kind, or bytes left over): the record format of other logs, too (cluster mode's
     * command records).
     */
    public static Change change(byte[] payload) {
        return decodePayload(payload, 0, payload.length);
    }

    private static Change decodePayload(byte[] data, int offset, int length) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data, offset, length))) {
            if (in.readUnsignedByte() != PAYLOAD_VERSION) {
                return null;
            }
            Change c = switch (in.readUnsignedByte()) {
                case CREATE_BOARD -> new Change.CreateBoard(in.readUTF(), in.readUTF());
                case ADD_NOTE -> new Change.AddNote(in.readUTF(), in.readUTF(), in.readUTF());
                case EDIT_NOTE -> new Change.EditNote(in.readUTF(), in.readUTF(), in.readUTF(), in.readLong());
                case DELETE_NOTE -> new Change.DeleteNote(in.readUTF(), in.readUTF(), in.readLong());
                default -> null;
            };
            return in.available() == 0 ? c : null;
        } catch (IOException | RuntimeException e) {
            return null; // a payload that does not parse is as bad as a bad checksum
        }
    }

    static int le32(byte[] data, int at) {
        return (data[at] & 0xFF) | (data[at + 1] & 0xFF) << 8 | (data[at + 2] & 0xFF) << 16 | (data[at + 3] & 0xFF) << 24;
    }

    static long le64(byte[] data, int at) {
        return (le32(data, at) & 0xFFFF_FFFFL) | (long) le32(data, at + 4) << 32;
    }
}
