package dev.corobridge.benchmarks;

import dev.corobridge.sync.AsyncReadWriteMutex;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import kotlinx.coroutines.sync.Mutex;
import kotlinx.coroutines.sync.MutexKt;
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
 * Read-write lock under contention: {@value #WORKERS} workers each take the lock
 * {@value #OPS_PER_WORKER} times — {@code readersPerWriter} reads for every write, spread evenly
 * over every worker's sequence — and yield while holding it, so that the others really queue up
 * (readers share the lock, a writer waits for them and holds it alone). A read sums
 * {@value #CELLS} shared cells, a write increments one. One operation is one
 * lock/work/yield/unlock. Variants ({@code impl}):
 *
 * <ul>
 *   <li>{@code javaFaceVirtualThreads} — {@link AsyncReadWriteMutex}'s Java face in virtual threads:
 *       {@code try (var r = rw.readLockAsync().join()) { … }} (and {@code writeLockAsync()});</li>
 *   <li>{@code rrwlVirtualThreads} — the JDK peer a Java user would pick:
 *       {@link ReentrantReadWriteLock} (non-fair, its default) in virtual threads;</li>
 *   <li>{@code rrwlFairVirtualThreads} — the same lock in its fair mode (FIFO order, as
 *       {@link AsyncReadWriteMutex} always grants): a reference that tells the cost of the order from
 *       the cost of the implementation. Not a goal's peer;</li>
 *   <li>{@code kotlinFace} — {@link AsyncReadWriteMutex}'s Kotlin face ({@code withReadLock} /
 *       {@code withWriteLock}) in coroutines on {@code Dispatchers.Default};</li>
 *   <li>{@code kotlinxMutex} — what a Kotlin user has instead (kotlinx has no read-write mutex):
 *       kotlinx {@code Mutex.withLock} for reads and writes alike, in coroutines on
 *       {@code Dispatchers.Default}.</li>
 * </ul>
 *
 * Goals (printed by {@code SuiteRun}): the Java face on virtual threads at most 1.0× the time of
 * {@code ReentrantReadWriteLock} on virtual threads, the Kotlin face at most 1.3× kotlinx
 * {@code Mutex}, at every {@code readersPerWriter}. Beside ns/op: B/op ({@code -prof gc}),
 * wake-ups/op (voluntary context switches of the carrier or worker threads) and CPU ns/op.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar SyncReadWriteMutex -prof gc}, or as part
 * of {@code benchmarks/run} ({@code SuiteRun}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
public class SyncReadWriteMutexBenchmark {

    static final int WORKERS = 64;
    static final int OPS_PER_WORKER = 200;
    static final int CELLS = 8;
    private static final Duration WAIT = Duration.ofSeconds(60);
    /** Carrier threads of the virtual-thread scheduler. */
    private static final String CARRIERS = "ForkJoinPool-";

    @Param({"javaFaceVirtualThreads", "rrwlVirtualThreads", "rrwlFairVirtualThreads", "kotlinFace", "kotlinxMutex"})
    public String impl;

    @Param({"1", "8", "64"})
    public int readersPerWriter;

    private final AsyncReadWriteMutex rw = new AsyncReadWriteMutex();
    private final ReentrantReadWriteLock rrwl = new ReentrantReadWriteLock();
    private final ReentrantReadWriteLock fairRrwl = new ReentrantReadWriteLock(true);
    private final Mutex kotlinxMutex = MutexKt.Mutex(false);
    /** The guarded data: read by readers, one cell incremented per write. */
    final long[] cells = new long[CELLS];
    Probe probe;

    @Benchmark
    @OperationsPerInvocation(WORKERS * OPS_PER_WORKER)
    public long lockUnlock(Counters counters, SpellLog spell) throws Exception {
        spell.invoked(WORKERS * OPS_PER_WORKER);
        long result = switch (impl) {
            case "javaFaceVirtualThreads" -> onVirtualThreads(this::javaFaceWorker);
            case "rrwlVirtualThreads" -> onVirtualThreads(worker -> rrwlWorker(rrwl, worker));
            case "rrwlFairVirtualThreads" -> onVirtualThreads(worker -> rrwlWorker(fairRrwl, worker));
            case "kotlinFace" -> ReadWriteLoads.kotlinFace(rw, cells, WORKERS, OPS_PER_WORKER, readersPerWriter);
            case "kotlinxMutex" -> ReadWriteLoads.kotlinx(kotlinxMutex, cells, WORKERS, OPS_PER_WORKER, readersPerWriter);
            default -> throw new IllegalArgumentException("unknown impl " + impl);
        };
        counters.ops += (long) WORKERS * OPS_PER_WORKER;
        return result;
    }

    /** Whether operation {@code op} of worker {@code worker} writes: one in every readersPerWriter + 1. */
    static boolean writes(int worker, int op, int readersPerWriter) {
        return (worker * OPS_PER_WORKER + op) % (readersPerWriter + 1) == 0;
    }

    static long read(long[] cells) {
        long sum = 0;
        for (long c : cells) {
            sum += c;
        }
        return sum;
    }

    private long javaFaceWorker(int worker) throws Exception {
        long seen = 0;
        for (int i = 0; i < OPS_PER_WORKER; i++) {
            if (writes(worker, i, readersPerWriter)) {
                try (AsyncReadWriteMutex.WriteLock w = rw.writeLockAsync().join()) {
                    cells[i % CELLS]++;
                    Thread.yield();
                }
            } else {
                try (AsyncReadWriteMutex.ReadLock r = rw.readLockAsync().join()) {
                    seen += read(cells);
                    Thread.yield();
                }
            }
        }
        return seen;
    }

    private long rrwlWorker(ReentrantReadWriteLock rrwl, int worker) {
        long seen = 0;
        for (int i = 0; i < OPS_PER_WORKER; i++) {
            if (writes(worker, i, readersPerWriter)) {
                rrwl.writeLock().lock();
                try {
                    cells[i % CELLS]++;
                    Thread.yield();
                } finally {
                    rrwl.writeLock().unlock();
                }
            } else {
                rrwl.readLock().lock();
                try {
                    seen += read(cells);
                    Thread.yield();
                } finally {
                    rrwl.readLock().unlock();
                }
            }
        }
        return seen;
    }

    @FunctionalInterface
    private interface Worker {
        long run(int worker) throws Exception;
    }

    private long onVirtualThreads(Worker body) throws Exception {
        Thread[] threads = new Thread[WORKERS];
        long[] seen = new long[WORKERS];
        for (int t = 0; t < WORKERS; t++) {
            int worker = t;
            threads[t] = Thread.ofVirtual().start(() -> {
                try {
                    seen[worker] = body.run(worker);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        long sum = 0;
        for (int t = 0; t < WORKERS; t++) {
            if (!threads[t].join(WAIT)) {
                throw new IllegalStateException("worker still running after " + WAIT);
            }
            sum += seen[t];
        }
        return sum + read(cells);
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (probe == null) {
            throw new IllegalStateException("no iteration ran");
        }
        if (rw.isLocked() || rw.hasWaiters() || rrwl.isWriteLocked() || rrwl.getReadLockCount() != 0
                || fairRrwl.isWriteLocked() || fairRrwl.getReadLockCount() != 0 || kotlinxMutex.isLocked()) {
            throw new IllegalStateException("a lock is still held after the run: " + rw + ", " + rrwl + ", " + fairRrwl + ", " + kotlinxMutex);
        }
        Report.result("SyncReadWriteMutexBenchmark",
                Map.of("impl", impl, "readersPerWriter", Integer.toString(readersPerWriter)), probe.values());
    }

    /** Per-iteration counts; see {@link Probe}. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        public long ops;

        @Setup(Level.Iteration)
        public void begin(SyncReadWriteMutexBenchmark b) {
            ops = 0;
            if (b.probe == null) {
                String workers = b.impl.endsWith("VirtualThreads") ? CARRIERS : PumpHopBenchmark.DEFAULT_WORKERS;
                b.probe = new Probe("SyncReadWriteMutex " + b.impl + "/" + b.readersPerWriter,
                        List.of(ThreadStats.currentTid()), List.of(workers));
            }
            b.probe.begin();
        }

        @TearDown(Level.Iteration)
        public void end(SyncReadWriteMutexBenchmark b, IterationParams iteration) {
            b.probe.end(ops, iteration.getType() == IterationType.MEASUREMENT);
        }
    }
}
