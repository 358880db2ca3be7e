package dev.corobridge.demo.journal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import dev.corobridge.demo.board.Change;

/**
 * The journal's record format, stateless and thread-safe.
 *
 * <pre>
 *   record  = length:int32 LE | crc32c(payload):int32 LE | payload[length]
 *   payload = version:u8 (1) | kind:u8 | fields (modified UTF-8 strings, int64 versions)
 * </pre>
 *
 * A record is valid when its header is complete, {@code 0 < length <= MAX_PAYLOAD}, the payload is
 * complete and its CRC32C matches. {@link #decode} stops at the first invalid record: since a
 * batch is written only after the one before it is durable, everything from there on belongs to
 * the last, unacknowledged batch, a torn tail that the journal cuts off.
 */
public final class JournalCodec {

    /** Header bytes before each payload. */
    public static final int HEADER = 8;
    /** Largest payload accepted (a note is at most 2000 chars). */
    public static final int MAX_PAYLOAD = 64 * 1024;

    private static final int FORMAT = 1;
    private static final int CREATE_BOARD = 1;
    private static final int ADD_NOTE = 2;
    private static final int EDIT_NOTE = 3;
    private static final int DELETE_NOTE = 4;

    private JournalCodec() {
    }

    /** One change as a complete record (header and payload). */
    public static byte[] encode(Change change) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        bytes.writeBytes(new byte[HEADER]);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT);
            switch (change) {
                case Change.CreateBoard c -> {
                    out.writeByte(CREATE_BOARD);
                    out.writeUTF(c.boardId());
                    out.writeUTF(c.name());
                }
                case Change.AddNote c -> {
                    out.writeByte(ADD_NOTE);
                    out.writeUTF(c.boardId());
                    out.writeUTF(c.noteId());
                    out.writeUTF(c.text());
                }
                case Change.EditNote c -> {
                    out.writeByte(EDIT_NOTE);
                    out.writeUTF(c.boardId());
                    out.writeUTF(c.noteId());
                    out.writeUTF(c.text());
                    out.writeLong(c.expectedVersion());
                }
                case Change.DeleteNote c -> {
                    out.writeByte(DELETE_NOTE);
                    out.writeUTF(c.boardId());
                    out.writeUTF(c.noteId());
                    out.writeLong(c.expectedVersion());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e); // cannot happen: in memory
        }
        byte[] record = bytes.toByteArray();
        int length = record.length - HEADER;
        if (length > MAX_PAYLOAD) {
            throw new IllegalArgumentException("change too large for the journal: " + length + " bytes");
        }
        CRC32C crc = new CRC32C();
        crc.update(record, HEADER, length);
        ByteBuffer.wrap(record, 0, HEADER).order(ByteOrder.LITTLE_ENDIAN).putInt(length).putInt((int) crc.getValue());
        return record;
    }

    /**
     * The valid records at the start of {@code data}.
     *
     * @param data  the journal's bytes
     * @param limit how many bytes of {@code data} are the journal
     */
    public static Decoded decode(byte[] data, int limit) {
        List<Change> changes = new ArrayList<>();
        ByteBuffer header = ByteBuffer.wrap(data, 0, limit).order(ByteOrder.LITTLE_ENDIAN);
        int at = 0;
        CRC32C crc = new CRC32C();
        while (limit - at >= HEADER) {
            int length = header.getInt(at);
            int expected = header.getInt(at + 4);
            if (length <= 0 || length > MAX_PAYLOAD || length > limit - at - HEADER) {
                break;
            }
            crc.reset();
            crc.update(data, at + HEADER, length);
            if ((int) crc.getValue() != expected) {
                break;
            }
            Change c = payload(data, at + HEADER, length);
            if (c == null) {
                break;
            }
            changes.add(c);
            at += HEADER + length;
        }
        return new Decoded(changes, at);
    }

    private static Change payload(byte[] data, int offset, int length) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data, offset, length))) {
            if (in.readUnsignedByte() != FORMAT) {
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
        } catch (IOException e) {
            return null; // a payload that does not parse is as bad as a bad checksum
        }
    }

    /**
     * What {@link #decode} found.
     *
     * @param changes     the valid records' changes, in order
     * @param validLength bytes covered by valid records; anything after is a torn tail
     */
    public record Decoded(List<Change> changes, int validLength) {
    }
}
