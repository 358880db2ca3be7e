package dev.corobridge.benchmarks;

import dev.corobridge.ring.Ring;
import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;
import dev.corobridge.ring.Transport;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringIoHandlerConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.Dispatchers;
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
 * Issue 4: 4 KiB random reads from a page-cached 256 MiB file by {@code n} concurrent readers
 * (1, 8, 64, 256), the ways side by side in one run ({@code impl}):
 * <ul>
 *   <li>{@code ring1}, {@code ring2}: a {@link RingPool} with 1 or 2 rings; every reader is a
 *       coroutine on a ring's own dispatcher (reader i on ring i mod rings, reading a file opened on
 *       that ring), so it resumes inline when the read completes;</li>
 *   <li>{@code ring1Default}, {@code ring2Default}: the same pools, the readers are coroutines on
 *       {@code Dispatchers.Default} awaiting the ring's reads (a hand-off each way);</li>
 *   <li>{@code io}: coroutines on {@code Dispatchers.IO} calling {@code FileChannel.read(buf, pos)};</li>
 *   <li>{@code afc}: coroutines on {@code Dispatchers.Default} suspending on
 *       {@code AsynchronousFileChannel.read} (the JDK's default thread pool);</li>
 *   <li>{@code vthreads}: virtual threads calling {@code FileChannel.read(buf, pos)}.</li>
 * </ul>
 * The ring option that Netty 4.2.15 lets us choose, side by side: {@code ring1NoSingleIssuer} is a
 * ring over a Netty io_uring loop with {@code setSingleIssuer(false)}, adopted by the pool.
 * {@code ring1} uses Netty's default, single issuer, which sets IORING_SETUP_SINGLE_ISSUER together
 * with IORING_SETUP_DEFER_TASKRUN and IORING_SETUP_TASKRUN_FLAG (the two cannot be chosen apart).
 * Registered buffers and files are not reachable through Netty's {@code IoUringIoOps} and
 * {@code IoUringIoHandlerConfig} (no buffer or file registration, no READ_FIXED).
 * For investigations only ({@code -p impl=...}): {@code ring2Default} and {@code fallback1} (the
 * pool's FALLBACK transport, 1 ring).
 *
 * <p>One operation is one 4 KiB read; {@value #READS} per invocation, split evenly over the
 * readers. Every read must return 4096 bytes, and one byte of each is summed into the result. The
 * file is written in the trial set-up (under {@code java.io.tmpdir}, or {@code -Dread.dir}), forced
 * to disk (so no write-back runs during the measurement) and read once to warm the page cache; it
 * is deleted at tear-down. Reported besides ops/s: process CPU per read, the threads that were busy
 * (at least 10 % of a core), wake-ups (sleeps of the ring, kotlinx, JDK pool and carrier threads),
 * and the CPU the rest of the machine used.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class RingFileReadBenchmark {

    static final int READS = 16_384;
    static final long FILE_SIZE = 256L << 20;
    static final String RING_NAME = "rd-ring";

    @Param({"ring1", "ring1NoSingleIssuer", "ring2", "ring1Default", "io", "afc", "vthreads"})
    public String impl;

    /** Reads in flight (the queue depth): one reader each. */
    @Param({"1", "8", "64", "256"})
    public int n;

    Path file;
    List<Reader> readers;
    private RingPool pool;
    private MultiThreadIoEventLoopGroup adoptedGroup;
    private List<RingFile> ringFiles;
    private List<CoroutineDispatcher> dispatchers;
    private FileChannel channel;
    private AsynchronousFileChannel asyncChannel;
    Probe probe;

    @Setup(Level.Trial)
    public void start() throws Exception {
        if (READS % n != 0) {
            throw new IllegalArgumentException("n=" + n + " must divide " + READS);
        }
        Path dir = Path.of(System.getProperty("read.dir", System.getProperty("java.io.tmpdir")));
        file = Files.createTempFile(dir, "ring-read-", ".bin");
        try {
            open();
        } catch (Throwable e) {
            Files.deleteIfExists(file); // JMH skips the tear-down when the set-up fails: do not leave 256 MiB behind
            throw e;
        }
    }

    private void open() throws Exception {
        writeAndWarm(file);
        readers = new ArrayList<>();
        Random seeds = new Random(42);
        for (int i = 0; i < n; i++) {
            readers.add(new Reader(seeds.nextLong(), FILE_SIZE / RingReadLoad.BLOCK));
        }
        switch (impl) {
            case "ring1", "ring1Default" -> startPool(1, false, false);
            case "ring2", "ring2Default" -> startPool(2, false, false);
            case "ring1NoSingleIssuer" -> startPool(1, true, false);
            case "fallback1" -> startPool(1, false, true);
            case "io", "vthreads" -> channel = FileChannel.open(file, StandardOpenOption.READ);
            case "afc" -> asyncChannel = AsynchronousFileChannel.open(file, StandardOpenOption.READ);
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        }
        if (pool != null) {
            ringFiles = new ArrayList<>();
            dispatchers = new ArrayList<>();
            for (Ring r : pool.getRings()) {
                ringFiles.add(RingBench.open(r, file));
                dispatchers.add(impl.endsWith("Default") ? Dispatchers.getDefault() : r.getDispatcher());
            }
        }
    }

    private void startPool(int rings, boolean noSingleIssuer, boolean fallback) {
        RingPoolConfig config = RingPoolConfig.builder().name(RING_NAME).rings(rings).forceFallback(fallback).build();
        if (noSingleIssuer) {
            AtomicInteger k = new AtomicInteger();
            ThreadFactory threads = r -> {
                Thread t = new io.netty.util.concurrent.FastThreadLocalThread(r, RING_NAME + "-" + k.getAndIncrement());
                t.setDaemon(true);
                return t;
            };
            adoptedGroup = new MultiThreadIoEventLoopGroup(rings, threads, IoUringIoHandler.newFactory(
                    new IoUringIoHandlerConfig().setRingSize(config.ringSize()).setSingleIssuer(false)));
            pool = RingPool.adopt(adoptedGroup, config);
        } else {
            pool = RingPool.start(config);
        }
        Transport want = fallback ? Transport.FALLBACK : Transport.IO_URING;
        if (pool.getMetrics().transport() != want) {
            throw new IllegalStateException(impl + " needs " + want + " but the pool runs " + pool.getMetrics().transport()
                    + ": " + pool.getMetrics().fallbackReason());
        }
    }

    static void writeAndWarm(Path file) throws IOException {
        ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
        byte[] random = new byte[1 << 20];
        new Random(7).nextBytes(random);
        chunk.put(random).flip();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            for (long pos = 0; pos < FILE_SIZE; pos += chunk.capacity()) {
                chunk.rewind();
                while (chunk.hasRemaining()) {
                    ch.write(chunk, pos + chunk.position());
                }
            }
            ch.force(true); // no write-back left to run during the measurement
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long pos = 0;
            while (pos < FILE_SIZE) {
                chunk.clear();
                int r = ch.read(chunk, pos);
                if (r <= 0) {
                    throw new IllegalStateException("file shorter than written: " + pos);
                }
                pos += r;
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(READS)
    public long read(Counters counters) throws Exception {
        int each = READS / n;
        long done = switch (impl) {
            case "io" -> RingReadLoad.io(channel, readers, each);
            case "afc" -> RingReadLoad.afc(asyncChannel, readers, each);
            case "vthreads" -> virtualThreads(each);
            default -> RingReadLoad.ring(ringFiles, dispatchers, readers, each);
        };
        if (done != READS) {
            throw new IllegalStateException(impl + ": " + done + " reads instead of " + READS);
        }
        counters.reads += done;
        long sum = 0;
        for (Reader r : readers) {
            sum += r.checksum;
        }
        return sum;
    }

    private long virtualThreads(int each) throws InterruptedException {
        Thread[] threads = new Thread[n];
        long[] done = new long[n];
        Throwable[] failed = new Throwable[1];
        for (int i = 0; i < n; i++) {
            Reader r = readers.get(i);
            int k = i;
            threads[i] = Thread.ofVirtual().start(() -> {
                try {
                    for (int j = 0; j < each; j++) {
                        r.prepare();
                        r.done(channel.read(r.buf, r.nextPosition()));
                    }
                    done[k] = each;
                } catch (Throwable e) {
                    failed[0] = e;
                }
            });
        }
        long sum = 0;
        for (int i = 0; i < n; i++) {
            threads[i].join();
            sum += done[i];
        }
        if (failed[0] != null) {
            throw new IllegalStateException("a virtual reader failed", failed[0]);
        }
        return sum;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        try {
            if (probe == null) {
                throw new IllegalStateException("no iteration ran");
            }
            long reads = 0;
            for (Reader r : readers) {
                reads += r.reads;
            }
            if (reads == 0) {
                throw new IllegalStateException(impl + ": no reads");
            }
            Map<String, String> v = probe.values();
            if (pool != null) {
                v.put("transport", pool.getMetrics().transport().toString());
                v.put("ringCompletions", Long.toString(pool.getMetrics().completions()));
            }
            Report.result("RingFileReadBenchmark", Map.of("impl", impl, "n", Integer.toString(n)), v);
        } finally {
            if (pool != null) {
                pool.shutdown(Duration.ofSeconds(1));
                pool.awaitTermination(Duration.ofSeconds(15));
            }
            if (adoptedGroup != null) {
                adoptedGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
            if (channel != null) {
                channel.close();
            }
            if (asyncChannel != null) {
                asyncChannel.close();
            }
            Files.deleteIfExists(file);
        }
    }

    /** Per-iteration counts; see {@link Probe}. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        public long reads;

        @Setup(Level.Iteration)
        public void begin(RingFileReadBenchmark b) {
            reads = 0;
            if (b.probe == null) {
                b.probe = new Probe("RingFileRead " + b.impl + " n=" + b.n, List.of(ThreadStats.currentTid()),
                        List.of(RING_NAME, PumpHopBenchmark.DEFAULT_WORKERS, "ForkJoinPool", "Thread-"));
            }
            b.probe.begin();
        }

        @TearDown(Level.Iteration)
        public void end(RingFileReadBenchmark b, IterationParams iteration) {
            b.probe.end(reads, iteration.getType() == IterationType.MEASUREMENT);
        }
    }
}
