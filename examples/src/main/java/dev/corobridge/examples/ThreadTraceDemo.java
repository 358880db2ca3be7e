package dev.corobridge.examples;

import dev.corobridge.bridge.Task;
import dev.corobridge.pump.Affine;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpMetrics;
import dev.corobridge.ring.RingPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The runnable demo: prints where each step of a small job ran (pump, virtual thread, io_uring
 * ring, Default pool), once from Java and once from Kotlin, like a thread-id log.
 */
public final class ThreadTraceDemo {

    private ThreadTraceDemo() {
    }

    @SuppressWarnings("deprecation")
    public static void main(String[] args) throws Exception {
        MessagePump ui = MessagePump.start("ui");
        RingPool io = RingPool.start();
        Path dir = Files.createTempDirectory("corobridge-demo");
        try {
            System.out.println("ring pool: " + io + (io.getMetrics().fallbackReason().isEmpty() ? "" : " (" + io.getMetrics().fallbackReason() + ")"));
            Affine<List<String>> board = Affine.of(ui, new ArrayList<>());

            Task<Integer> java = JournalExample.saveNote(ui, io, board, dir.resolve("journal.log"), "hello from Java");
            System.out.println("Java: board has " + java.join(Duration.ofSeconds(30)) + " note(s); hops:");
            System.out.print(java.getTrace());

            Task<Integer> kotlin = new JournalKotlin(ui, io, castBoard(board)).saveNoteTask(dir.resolve("journal.log"), "hello from Kotlin");
            System.out.println("Kotlin: board has " + kotlin.join(Duration.ofSeconds(30)) + " note(s)");

            System.out.println("Kotlin withContext hops:");
            System.out.print(KotlinThreadTrace.run(ui));

            try {
                board.get();
            } catch (IllegalStateException offPump) {
                System.out.println("Touching the board from '" + Thread.currentThread().getName() + "' fails:\n  "
                        + offPump.getMessage());
            }
            System.out.println("journal file:\n  " + String.join("\n  ", Files.readAllLines(dir.resolve("journal.log"))));
            PumpMetrics m = ui.getMetrics();
            System.out.printf("pump '%s': %d dispatches, %d wake-ups (%.2f per dispatch); rings: %s%n",
                    m.pumpName(), m.dispatches(), m.wakeups(), m.wakeupsPerDispatch(), io.getMetrics().operations());
        } finally {
            io.shutdown().get();
            System.out.println(ui.shutdown().get());
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Affine<List<String>> castBoard(Affine<List<String>> b) {
        return (Affine) b;
    }
}
