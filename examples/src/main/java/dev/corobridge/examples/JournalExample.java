package dev.corobridge.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;

import dev.corobridge.bridge.Task;
import dev.corobridge.pump.Affine;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.reactor.TaskMono;
import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingPool;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import reactor.core.publisher.Mono;

/**
 * The README's Java example, compiled: journal a note on a ring, then show it on the pump. The
 * region between the snippet markers is the README's code block, character for character
 * ({@code ReadmeSnippetsTest} checks it).
 */
public final class JournalExample {

    private JournalExample() {
    }

    // snippet-begin: readme-java
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

    static void run(Users users, String id) throws Exception {
        MessagePump ui = MessagePump.start("ui");                       // the UI-affinity thread
        RingPool io = RingPool.start();                                 // io_uring background contexts
        Affine<List<String>> board = Affine.of(ui, new ArrayList<>());  // state only the pump may touch

        Task<Integer> count = saveNote(ui, io, board, Path.of("journal.log"), "hello");
        count.join();              // parks a virtual thread; throws IllegalStateException on the pump
        Task<User> me = Task.startSuspend(ui, users::current);             // call a Kotlin suspend fun
        Task<User> u = Task.startSuspend(ui, cont -> users.load(id, cont));   // ... one with arguments
        CompletableFuture<Integer> f = count.toCompletableFuture();
        Mono<Integer> m = TaskMono.toMono(count);                       // corobridge-reactor
    }
    // snippet-end: readme-java
}
