package dev.corobridge.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;

import dev.corobridge.bridge.Task;
import dev.corobridge.pump.Affine;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingPool;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/** The README's Java example, compiled: journal a note on a ring, then show it on the pump. */
public final class JournalExample {

    private JournalExample() {
    }

    // README: begin
    static Task<Integer> saveNote(MessagePump ui, RingPool io, Affine<List<String>> board, Path path, String note) {
        return Task.startVirtual(() -> {                    // a virtual thread: join() is cheap here
            try (RingFile journal = io.openAsync(path, CREATE, APPEND).join()) {  // close() waits here
                journal.appendAsync(ByteBuffer.wrap((note + "\n").getBytes(UTF_8))).join(); // departs at call time
                journal.fdatasyncAsync().join();            // durable before we say so
            }
            return note;
        }).thenOn(ui, saved -> {                            // back on the UI-affinity pump
            board.get().add(saved);                         // pump-owned state: allowed here only
            return board.get().size();
        });
    }
    // README: end
}
