package dev.corobridge.examples;

import dev.corobridge.bridge.Task;
import dev.corobridge.pump.Affine;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpConfig;
import dev.corobridge.pump.PumpMetrics;
import dev.corobridge.pump.ShutdownReport;
import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingMetrics;
import dev.corobridge.ring.RingOp;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The dispatchers README's Java example, compiled: a pump and a ring pool from start to shutdown. */
public final class PumpExample {

    private PumpExample() {
    }

    static void lifecycle(Path path) throws Exception {
        // snippet-begin: dispatchers-java
        MessagePump ui = MessagePump.start(PumpConfig.builder("ui").stallThreshold(Duration.ofMillis(200)).build());
        RingPool io = RingPool.start(RingPoolConfig.builder().name("io").rings(2).build());
        Affine<List<String>> lines = Affine.of(ui, new ArrayList<>());   // touched on the pump only

        ui.execute(() -> lines.get().add("posted"));                      // always queued, never inline
        ui.schedule(() -> lines.get().add("a second later"), Duration.ofSeconds(1));

        Task<Integer> read = Task.startVirtual(() -> {
            try (RingFile file = io.openAsync(path).join()) {
                ByteBuffer a = ByteBuffer.allocateDirect(4096);
                ByteBuffer b = ByteBuffer.allocateDirect(4096);
                RingOp<Integer> first = file.readAsync(a, 0);             // both depart now ...
                RingOp<Integer> second = file.readAsync(b, 4096);
                return first.join() + second.join();                     // ... and overlap
            }
        }).thenOn(ui, n -> {
            lines.get().add("read " + n + " bytes");
            return n;
        });
        read.join();

        PumpMetrics pm = ui.getMetrics();      // wake-ups per dispatch, queue latency, stalls ...
        RingMetrics rm = io.getMetrics();      // transport (IO_URING or FALLBACK and why), in flight ...
        ShutdownReport report = ui.shutdown().join();   // cancels ui.scope's coroutines, lets them finish
        io.shutdown().join();                           // cancels in-flight operations, closes files
        // snippet-end: dispatchers-java
    }
}
