package dev.corobridge.benchmarks;

import dev.corobridge.sync.AsyncMutex;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import kotlinx.coroutines.sync.Mutex;
import kotlinx.coroutines.sync.MutexKt;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Mutex under contention: 64 waiters each lock, increment a shared counter, yield while holding
 * the lock (so that the other waiters really queue up behind it: every unlock hands the lock to a
 * suspended waiter) and unlock, 200 times. One operation is one lock/yield/unlock. Variants:
 *
 * <ul>
 *   <li>{@code kotlinxMutex} — the baseline: kotlinx {@code Mutex.withLock} in 64 coroutines on
 *       {@code Dispatchers.Default};</li>
 *   <li>{@code javaFaceCoroutines} — {@link AsyncMutex}'s Java face ({@code lock()} returning an
 *       Awaitable, {@code unlock()}) awaited by 64 coroutines: the cost of the face, same scheduler;</li>
 *   <li>{@code javaFaceVirtualThreads} — the Java face in 64 virtual threads blocking in
 *       {@code lockAsync().join()};</li>
 *   <li>{@code kotlinFace} — {@link AsyncMutex}'s Kotlin face ({@code withLock}) in 64 coroutines;</li>
 *   <li>{@code reentrantLockVirtualThreads} — the JDK peer: {@link ReentrantLock} in 64 virtual threads.</li>
 * </ul>
 *
 * Run: {@code java -jar benchmarks/target/benchmarks.jar SyncMutex -f 1 -wi 2 -w 1s -i 3 -r 2s -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@State(Scope.Benchmark)
public class SyncMutexBenchmark {

    static final int WAITERS = 64;
    static final int OPS_PER_WAITER = 200;
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final Mutex kotlinxMutex = MutexKt.Mutex(false);
    private final AsyncMutex asyncMutex = new AsyncMutex();
    private final ReentrantLock reentrantLock = new ReentrantLock();
    private long counter;

    @Benchmark
    @OperationsPerInvocation(WAITERS * OPS_PER_WAITER)
    public long kotlinxMutex() {
        return MutexLoads.kotlinx(kotlinxMutex, WAITERS, OPS_PER_WAITER);
    }

    @Benchmark
    @OperationsPerInvocation(WAITERS * OPS_PER_WAITER)
    public long kotlinFace() {
        return MutexLoads.kotlinFace(asyncMutex, WAITERS, OPS_PER_WAITER);
    }

    @Benchmark
    @OperationsPerInvocation(WAITERS * OPS_PER_WAITER)
    public long javaFaceCoroutines() {
        return MutexLoads.javaFace(asyncMutex, WAITERS, OPS_PER_WAITER);
    }

    @Benchmark
    @OperationsPerInvocation(WAITERS * OPS_PER_WAITER)
    public long javaFaceVirtualThreads() throws Exception {
        return onVirtualThreads(() -> {
            for (int i = 0; i < OPS_PER_WAITER; i++) {
                asyncMutex.lockAsync().join();
                try {
                    counter++;
                    Thread.yield();
                } finally {
                    asyncMutex.unlock();
                }
            }
        });
    }

    @Benchmark
    @OperationsPerInvocation(WAITERS * OPS_PER_WAITER)
    public long reentrantLockVirtualThreads() throws Exception {
        return onVirtualThreads(() -> {
            for (int i = 0; i < OPS_PER_WAITER; i++) {
                reentrantLock.lock();
                try {
                    counter++;
                    Thread.yield();
                } finally {
                    reentrantLock.unlock();
                }
            }
        });
    }

    @FunctionalInterface
    private interface Body {
        void run() throws Exception;
    }

    private long onVirtualThreads(Body body) throws Exception {
        Thread[] threads = new Thread[WAITERS];
        for (int t = 0; t < WAITERS; t++) {
            threads[t] = Thread.ofVirtual().start(() -> {
                try {
                    body.run();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        for (Thread t : threads) {
            if (!t.join(WAIT)) {
                throw new IllegalStateException("waiter still running after " + WAIT);
            }
        }
        return counter;
    }
}
