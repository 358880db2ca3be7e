package dev.corobridge.benchmarks;

import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingOp;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;
import dev.corobridge.ring.Transport;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Issue 4: durable 4 KiB writes, {@code write} + {@code fdatasync}, to a real (disk-backed) file:
 * <ul>
 *   <li>{@code mode=one}: one at a time, each write awaited and then fdatasync'ed;</li>
 *   <li>{@code mode=grouped}: {@value #GROUP} writes in flight together, then one fdatasync;</li>
 *   <li>{@code mode=writeOnly} (for investigations, {@code -p mode=writeOnly}): one write at a time,
 *       awaited, and no fdatasync at all, to see what the write alone costs.</li>
 * </ul>
 * with the ring pool ({@code impl=ring}, 1 ring, awaited from the benchmark thread) and, as the
 * reference, a plain {@code FileChannel} ({@code write} then {@code force(false)}; grouped: 8
 * writes one after another, then one force). One operation is one durable write. The writes go
 * to 4 KiB blocks of a preallocated 64 MiB file (overwrites, so fdatasync has no size change to
 * record), in {@code -Dwrite.dir} or else {@code java.io.tmpdir} (fdatasync on tmpfs would cost
 * nothing: pick a disk-backed directory, see the README). Every write must write 4096 bytes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
public class WriteSyncBenchmark {

    static final int GROUP = 8;
    static final int BLOCK = 4096;
    static final long FILE_SIZE = 64L << 20;
    static final String RING_NAME = "ws-ring";

    @Param({"ring", "filechannel"})
    public String impl;

    @Param({"one", "grouped"})
    public String mode;

    Path file;
    private RingPool pool;
    private RingFile ringFile;
    private FileChannel channel;
    private final ByteBuffer[] buffers = new ByteBuffer[GROUP];
    @SuppressWarnings("unchecked")
    private final RingOp<Integer>[] inFlight = new RingOp[GROUP];
    private long next;
    long writes;
    long syncs;
    Probe probe;

    @Setup(Level.Trial)
    public void start() throws Exception {
        Path dir = Path.of(System.getProperty("write.dir", System.getProperty("java.io.tmpdir")));
        file = Files.createTempFile(dir.toAbsolutePath(), "write-sync-", ".bin");
        try {
            open();
        } catch (Throwable e) {
            Files.deleteIfExists(file); // JMH skips the tear-down when the set-up fails
            throw e;
        }
    }

    private void open() throws Exception {
        ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            for (long pos = 0; pos < FILE_SIZE; pos += chunk.capacity()) {
                chunk.clear();
                while (chunk.hasRemaining()) {
                    ch.write(chunk, pos + chunk.position());
                }
            }
            ch.force(true);
        }
        for (int i = 0; i < GROUP; i++) {
            buffers[i] = ByteBuffer.allocateDirect(BLOCK);
            for (int j = 0; j < BLOCK; j++) {
                buffers[i].put(j, (byte) (i + j));
            }
        }
        switch (impl) {
            case "ring" -> {
                pool = RingPool.start(RingPoolConfig.builder().name(RING_NAME).rings(1).build());
                if (pool.getMetrics().transport() != Transport.IO_URING) {
                    throw new IllegalStateException("ring needs io_uring: " + pool.getMetrics().fallbackReason());
                }
                ringFile = pool.openAsync(file, StandardOpenOption.READ, StandardOpenOption.WRITE).join();
            }
            case "filechannel" -> channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        }
    }

    private long position() {
        long p = next * BLOCK % FILE_SIZE;
        next++;
        return p;
    }

    @Benchmark
    @OperationsPerInvocation(GROUP)
    public long writeSync(Counters counters) throws Exception {
        long written = 0;
        boolean grouped = mode.equals("grouped");
        boolean sync = !mode.equals("writeOnly");
        if (!sync) {
            for (int i = 0; i < GROUP; i++) {
                buffers[i].clear();
                written += checked(impl.equals("ring") ? ringFile.writeAsync(buffers[i], position()).join()
                        : channel.write(buffers[i], position()));
            }
            counters.writes += GROUP;
            return written;
        }
        if (impl.equals("ring")) {
            if (grouped) {
                for (int i = 0; i < GROUP; i++) {
                    buffers[i].clear();
                    inFlight[i] = ringFile.writeAsync(buffers[i], position());
                }
                for (int i = 0; i < GROUP; i++) {
                    written += checked(inFlight[i].join());
                }
                ringFile.fdatasyncAsync().join();
                counters.syncs++;
            } else {
                for (int i = 0; i < GROUP; i++) {
                    buffers[i].clear();
                    written += checked(ringFile.writeAsync(buffers[i], position()).join());
                    ringFile.fdatasyncAsync().join();
                    counters.syncs++;
                }
            }
        } else {
            for (int i = 0; i < GROUP; i++) {
                buffers[i].clear();
                written += checked(channel.write(buffers[i], position()));
                if (!grouped) {
                    channel.force(false);
                    counters.syncs++;
                }
            }
            if (grouped) {
                channel.force(false);
                counters.syncs++;
            }
        }
        counters.writes += GROUP;
        return written;
    }

    private static int checked(int n) {
        if (n != BLOCK) {
            throw new IllegalStateException("short write: " + n + " bytes instead of " + BLOCK);
        }
        return n;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        try {
            if (probe == null || writes == 0 || (syncs == 0 && !mode.equals("writeOnly"))) {
                throw new IllegalStateException(impl + "/" + mode + ": no durable writes measured");
            }
            Map<String, String> v = probe.values();
            v.put("syncsPerWrite", String.format(java.util.Locale.ROOT, "%.3f", syncs / (double) writes));
            v.put("dir", file.getParent().toString());
            Report.result("WriteSyncBenchmark", Map.of("impl", impl, "mode", mode), v);
        } finally {
            if (ringFile != null) {
                ringFile.closeAsync().join();
            }
            if (pool != null) {
                pool.shutdown(Duration.ofSeconds(1));
                pool.awaitTermination(Duration.ofSeconds(15));
            }
            if (channel != null) {
                channel.close();
            }
            Files.deleteIfExists(file);
        }
    }

    /** Per-iteration counts; see {@link Probe}. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        public long writes;
        public long syncs;

        @Setup(Level.Iteration)
        public void begin(WriteSyncBenchmark b) {
            writes = 0;
            syncs = 0;
            if (b.probe == null) {
                b.probe = new Probe("WriteSync " + b.impl + "/" + b.mode, List.of(ThreadStats.currentTid()), List.of(RING_NAME));
            }
            b.probe.begin();
        }

        @TearDown(Level.Iteration)
        public void end(WriteSyncBenchmark b, IterationParams iteration) {
            if (syncs == 0 && !b.mode.equals("writeOnly")) {
                throw new IllegalStateException("an iteration made no fdatasync");
            }
            boolean measured = iteration.getType() == IterationType.MEASUREMENT;
            b.probe.end(writes, measured);
            if (measured) {
                b.writes += writes;
                b.syncs += syncs;
            }
        }
    }
}
