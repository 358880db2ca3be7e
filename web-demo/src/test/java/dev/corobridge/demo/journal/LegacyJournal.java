package dev.corobridge.demo.journal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import dev.corobridge.demo.board.Change;

/** Writes journals in format 1 ({@code length | crc32c(payload) | payload}), as before issue 12. */
final class LegacyJournal {

    private LegacyJournal() {
    }

    static byte[] record(Change change) {
        byte[] payload = JournalCodec.payload(change);
        return ByteBuffer.allocate(8 + payload.length).order(ByteOrder.LITTLE_ENDIAN).putInt(payload.length)
                .putInt(JournalCodec.crc(payload, 0, payload.length)).put(payload).array();
    }

    static byte[] bytes(List<Change> changes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Change c : changes) {
            out.writeBytes(record(c));
        }
        return out.toByteArray();
    }
}
