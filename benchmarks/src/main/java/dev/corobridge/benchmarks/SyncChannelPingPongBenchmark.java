package dev.corobridge.benchmarks;

import dev.corobridge.bridge.Task;
import dev.corobridge.sync.AsyncChannel;
import java.time.Duration;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Channel ping-pong: a pinger sends a number on one rendezvous channel and waits for it to come
 * back on another from an echo partner. One operation is one round trip (two hand-overs, each
 * waking the other side). Variants:
 *
 * <ul>
 *   <li>{@code kotlinxChannel} — the baseline: kotlinx {@code Channel}s, both sides coroutines on
 *       {@code Dispatchers.Default};</li>
 *   <li>{@code javaFaceVirtualThreads} — {@link AsyncChannel}'s Java face, both sides virtual threads
 *       blocking in {@code sendAsync(x).join()} / {@code receiveAsync().join()};</li>
 *   <li>{@code synchronousQueueVirtualThreads} — the JDK peer: {@link SynchronousQueue} put/take on
 *       virtual threads;</li>
 *   <li>{@code javaFaceCoroutines} — the Java face awaited by coroutines (same scheduler as the
 *       baseline: isolates the cost of the face);</li>
 *   <li>{@code kotlinFace} — {@link AsyncChannel}'s Kotlin face (suspend functions with the
 *       no-loss cancellation).</li>
 * </ul>
 *
 * Every measured iteration also prints the spell of the cores' transfer time it ran in
 * ({@link SpellLog}: {@code SPELL} lines), since a hand-over's cost moves with it.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar SyncChannelPingPong -f 1 -wi 2 -w 1s -i 3 -r 2s -prof gc}
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SyncChannelPingPongBenchmark {

    static final int ROUND_TRIPS = 2_000;
    private static final Duration WAIT = Duration.ofSeconds(60);

    @State(Scope.Benchmark)
    public static class Kotlinx {
        KotlinxPingPong pingPong;

        @Setup(Level.Trial)
        public void setUp() {
            pingPong = new KotlinxPingPong();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pingPong.close();
        }
    }

    @State(Scope.Benchmark)
    public static class KotlinFace {
        KotlinFacePingPong pingPong;

        @Setup(Level.Trial)
        public void setUp() {
            pingPong = new KotlinFacePingPong();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pingPong.close();
        }
    }

    @State(Scope.Benchmark)
    public static class JavaFaceOnCoroutines {
        JavaFaceCoroutinePingPong pingPong;

        @Setup(Level.Trial)
        public void setUp() {
            pingPong = new JavaFaceCoroutinePingPong();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pingPong.close();
        }
    }

    @State(Scope.Benchmark)
    public static class JavaFace {
        final AsyncChannel<Integer> ping = AsyncChannel.rendezvous();
        final AsyncChannel<Integer> pong = AsyncChannel.rendezvous();
        Thread echo;

        @Setup(Level.Trial)
        public void setUp() {
            echo = Thread.ofVirtual().name("echo").start(() -> {
                try {
                    for (var e = ping.nextAsync().join(); e.hasValue(); e = ping.nextAsync().join()) {
                        pong.sendAsync(e.value()).join();
                    }
                } catch (InterruptedException ignored) {
                    // torn down
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            ping.close();
            echo.join(WAIT);
        }
    }

    @State(Scope.Benchmark)
    public static class JdkQueue {
        final SynchronousQueue<Integer> ping = new SynchronousQueue<>();
        final SynchronousQueue<Integer> pong = new SynchronousQueue<>();
        Thread echo;

        @Setup(Level.Trial)
        public void setUp() {
            echo = Thread.ofVirtual().name("echo").start(() -> {
                try {
                    while (true) {
                        pong.put(ping.take());
                    }
                } catch (InterruptedException ignored) {
                    // torn down
                }
            });
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            echo.interrupt();
            echo.join(WAIT);
        }
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public int kotlinxChannel(Kotlinx s, SpellLog spell) {
        spell.invoked(ROUND_TRIPS);
        return s.pingPong.roundTrips(ROUND_TRIPS);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public int kotlinFace(KotlinFace s, SpellLog spell) {
        spell.invoked(ROUND_TRIPS);
        return s.pingPong.roundTrips(ROUND_TRIPS);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public int javaFaceCoroutines(JavaFaceOnCoroutines s, SpellLog spell) {
        spell.invoked(ROUND_TRIPS);
        return s.pingPong.roundTrips(ROUND_TRIPS);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public int javaFaceVirtualThreads(JavaFace s, SpellLog spell) throws Exception {
        spell.invoked(ROUND_TRIPS);
        return Task.startVirtual(() -> {
            int sum = 0;
            for (int i = 0; i < ROUND_TRIPS; i++) {
                s.ping.sendAsync(i).join();
                sum += s.pong.receiveAsync().join();
            }
            return sum;
        }).join(WAIT);
    }

    @Benchmark
    @OperationsPerInvocation(ROUND_TRIPS)
    public int synchronousQueueVirtualThreads(JdkQueue s, SpellLog spell) throws Exception {
        spell.invoked(ROUND_TRIPS);
        return Task.startVirtual(() -> {
            int sum = 0;
            for (int i = 0; i < ROUND_TRIPS; i++) {
                s.ping.put(i);
                sum += s.pong.take();
            }
            return sum;
        }).join(WAIT);
    }
}
