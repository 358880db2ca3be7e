package dev.corobridge.benchmarks;

import io.micrometer.context.ContextRegistry;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import kotlin.coroutines.CoroutineContext;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.ExecutorCoroutineDispatcher;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * One request's context carried across the same hop by corobridge and by what the peers offer,
 * side by side: the context is two MDC entries and a Micrometer {@code Observation} in scope
 * ({@link RequestContext}), the hop a round trip from a caller's pool to one single-thread
 * executor and back, and every hop checks on the executor's thread that the whole context arrived
 * ({@link ContextCheck}; a row whose hops miss it, or see it where none should be, fails).
 *
 * <p>{@code impl}:
 * <ul>
 *   <li>{@code coroutine-bare}: {@code n} coroutines on {@code Dispatchers.Default} looping
 *       {@code withContext(executor) {}} with no context: the coroutine hop alone;</li>
 *   <li>{@code corobridge}: the same with corobridge's {@code PropagatedContext} (what a task's
 *       coroutine carries, without hop tracing);</li>
 *   <li>{@code kotlinx-spring}: the same with kotlinx-coroutines-slf4j's {@code MDCContext} and
 *       Spring's {@code PropagationContextElement};</li>
 *   <li>{@code reactor-bare}: {@code n} Reactor chains on {@code Schedulers.parallel()}, each
 *       trip {@code Mono.just(i).publishOn(executor).map(check).publishOn(parallel)}, no context;</li>
 *   <li>{@code reactor-auto}: the same with {@code Hooks.enableAutomaticContextPropagation()} and
 *       the context captured into the Reactor {@code Context} ({@code contextCapture()}); the MDC
 *       travels through an accessor registered for it ({@link MdcMapAccessor}), the observation
 *       through Micrometer's.</li>
 * </ul>
 * The context's cost per hop is a row minus its bare row (ns and B per round trip; one round trip
 * is two hops, each restoring the context on arrival). Run with {@code -prof gc} for B/op.
 *
 * <p><b>Thread-safety.</b> One benchmark thread; the check runs on the executor's one thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class ContextHopPeersBenchmark {

    /** Round trips per invocation, split evenly over the n chains (so n must divide it). */
    static final int TRIPS = 4096;

    @Param({"coroutine-bare", "corobridge", "kotlinx-spring", "reactor-bare", "reactor-auto"})
    public String impl;

    /** Round trips in flight. */
    @Param({"1", "64"})
    public int n;

    private ExecutorService executor;
    private ExecutorCoroutineDispatcher dispatcher;
    private Scheduler targetScheduler;
    private HopSink sink;
    private ContextCheck check;
    private boolean carries;

    @Setup(Level.Trial)
    public void start() throws Exception {
        if (TRIPS % n != 0) {
            throw new IllegalArgumentException("n=" + n + " must divide " + TRIPS);
        }
        executor = HopLoad.namedSingleThreadExecutor("hop-executor");
        dispatcher = HopLoad.executorDispatcher(executor);
        targetScheduler = Schedulers.fromExecutorService(executor, "hop-executor");
        Thread target = executor.submit(Thread::currentThread).get();
        sink = new HopSink(target);
        check = new ContextCheck();
        sink.check = check;
        carries = !impl.endsWith("-bare");
        if (impl.equals("reactor-auto")) {
            ContextRegistry.getInstance().registerThreadLocalAccessor(new MdcMapAccessor());
            Hooks.enableAutomaticContextPropagation();
        }
    }

    @Benchmark
    @OperationsPerInvocation(TRIPS)
    public long roundTrip() {
        long done;
        RequestContext request = carries ? RequestContext.enter() : null;
        check.expect(request != null ? request.spanId() : 0);
        try {
            done = switch (impl) {
                case "coroutine-bare" -> PeerHopLoad.run(dispatcher, PeerHopLoad.bare(), n, TRIPS / n, sink);
                case "corobridge" -> PeerHopLoad.run(dispatcher, PeerHopLoad.corobridge(), n, TRIPS / n, sink);
                case "kotlinx-spring" -> PeerHopLoad.run(dispatcher, PeerHopLoad.kotlinxAndSpring(), n, TRIPS / n, sink);
                case "reactor-bare", "reactor-auto" -> reactorTrips();
                default -> throw new IllegalArgumentException("unknown impl " + impl);
            };
        } finally {
            if (request != null) {
                request.close();
            }
        }
        if (done != TRIPS) {
            throw new IllegalStateException(impl + ": " + done + " round trips instead of " + TRIPS);
        }
        if (sink.strays != 0) {
            throw new IllegalStateException(impl + ": " + sink.strays + " hops ran off the executor's thread");
        }
        check.take(impl, carries);
        return sink.value;
    }

    /** The Reactor rows: n chains on the parallel scheduler, each hopping to the executor and back. */
    private long reactorTrips() {
        Scheduler back = Schedulers.parallel();
        int tripsEach = TRIPS / n;
        Flux<Integer> trips = Flux.range(0, n).flatMap(w -> Flux.range(0, tripsEach)
                .concatMap(i -> Mono.just(i)
                        .publishOn(targetScheduler)
                        .map(j -> {
                            sink.touch(j);
                            return 1;
                        })
                        .publishOn(back))
                .subscribeOn(back), n);
        if (carries) {
            trips = trips.contextCapture();
        }
        Long done = trips.count().block();
        return done == null ? 0 : done;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        if (impl.equals("reactor-auto")) {
            Hooks.disableAutomaticContextPropagation();
            ContextRegistry.getInstance().removeThreadLocalAccessor(MdcMapAccessor.KEY);
        }
        targetScheduler.dispose();
        dispatcher.close();
        executor.shutdownNow();
        executor.awaitTermination(10, TimeUnit.SECONDS);
    }
}
