package dev.corobridge.benchmarks;

import dev.corobridge.bridge.Task;
import dev.corobridge.bridge.Tasks;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.Dispatchers;
import kotlinx.coroutines.ExecutorCoroutineDispatcher;
import kotlinx.coroutines.ExecutorsKt;
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
 * Issue 3: the cost of starting a trivial task on an executor and awaiting its result, with the
 * three ways side by side in one run ({@code way}):
 * <ul>
 *   <li>{@code task}: {@code Task.start(executor, body)} then {@code await()} (hop tracing on, the
 *       default); {@code taskNoTrace}: the same with {@code Tasks.setTracing(false)};</li>
 *   <li>{@code cf}: {@code CompletableFuture.supplyAsync(body, executor)} then {@code join()};</li>
 *   <li>{@code async}: kotlinx {@code async(dispatcher) { body }.await()}.</li>
 * </ul>
 * on two executors ({@code executor}): {@code single}, a single-thread executor (and its
 * {@code asCoroutineDispatcher()} for kotlinx), and {@code default}, {@code Dispatchers.Default}
 * (and {@code asExecutor()} of it for the future). The waiting side is the same for the three ways
 * ({@code side}):
 * <ul>
 *   <li>{@code thread}: the benchmark thread blocks for each result: {@code Task.join()},
 *       {@code join()}, and for kotlinx an {@code await()} inside one {@code runBlocking} per
 *       invocation (the runBlocking thread parks on every await, as the other two do);</li>
 *   <li>{@code coroutine}: one coroutine on the same executor awaits each result by suspending
 *       (the {@code await} extension for a Task, {@code CompletionStage.await()}, {@code Deferred.await()}).
 *       On the single thread nothing ever crosses threads: it is the pure overhead.</li>
 * </ul>
 * One operation is one start + await; {@value #OPS} per invocation, one after another. Reported
 * besides ns/op ({@code -prof gc} for B/op): wake-ups per operation (voluntary context switches of
 * the benchmark thread plus the executor's threads), process CPU per operation and the busy
 * threads, and the CPU the rest of the machine used. The body records the thread it ran on: a
 * body that did not run, or ran off the single executor's thread, fails the run.
 *
 * <p>{@code context} (default {@code plain}: the above) selects a row of the context propagation
 * cost study ({@link ContextCase}, run by {@link ContextCostRun}, {@code way=task} only): tracing and
 * propagation are switched per row, and in {@code on} the benchmark thread holds a
 * {@link RequestContext} during every iteration, which each task captures when it starts and
 * restores around its body on the executor. On the coroutine side the awaiting coroutine carries
 * the context as well ({@code PropagatedContext}), so its tasks capture it on the executor and it is
 * restored at each of its resumes. Every study row checks in each body that the context arrived
 * (or, in the other rows, that none did), and fails otherwise.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 1) // 3 were not always enough: C2 sometimes finished the Task path in the first measured second
@Measurement(iterations = 3, time = 1)
public class TaskOverheadBenchmark {

    static final int OPS = 256;
    static final String EXECUTOR_THREAD = "ovh-executor";
    private static final Integer ONE = 1;

    @Param({"single", "default"})
    public String executor;

    @Param({"thread", "coroutine"})
    public String side;

    @Param({"task", "taskNoTrace", "cf", "async"})
    public String way;

    /** The context propagation study's row ({@link ContextCase}); {@code plain}: not part of it. */
    @Param({"plain"})
    public String context;

    ContextCase contextCase;
    private Runnable switchesBack;
    /** The request context on the benchmark thread during an iteration of {@code context=on}. */
    RequestContext request;
    long measuredCarried;
    long measuredBare;

    CoroutineDispatcher dispatcher;
    Executor javaExecutor;
    private ExecutorService single;
    private ExecutorCoroutineDispatcher singleDispatcher;
    HopSink sink;
    Callable<Integer> body;
    Supplier<Integer> supplier;
    Probe probe;
    Thread ownerThread;

    @Setup(Level.Trial)
    public void start() throws Exception {
        contextCase = ContextCase.of(context);
        if (contextCase.checked() && !way.equals("task")) {
            throw new IllegalArgumentException("context=" + context + " measures Task: run it with -p way=task (way was "
                    + way + ")");
        }
        if (contextCase == ContextCase.BARE) {
            throw new IllegalArgumentException("context=bare is PumpHopBenchmark's (no Task at all); here the floor is off");
        }
        boolean tracingBefore = Tasks.isTracing();
        Runnable back = contextCase.applySwitches();
        switchesBack = () -> {
            back.run();
            Tasks.setTracing(tracingBefore);
        };
        if (!contextCase.checked()) {
            Tasks.setTracing(!way.equals("taskNoTrace"));
        }
        switch (executor) {
            case "single" -> {
                single = HopLoad.namedSingleThreadExecutor(EXECUTOR_THREAD);
                singleDispatcher = HopLoad.executorDispatcher(single);
                dispatcher = singleDispatcher;
                ownerThread = single.submit(Thread::currentThread).get();
            }
            case "default" -> dispatcher = Dispatchers.getDefault();
            default -> throw new IllegalArgumentException("unknown executor " + executor);
        }
        javaExecutor = ExecutorsKt.asExecutor(dispatcher);
        if (executor.equals("single") && javaExecutor != single) {
            throw new IllegalStateException("asExecutor() of the single executor's dispatcher is not the executor");
        }
        sink = new HopSink(ownerThread);
        if (contextCase.checked()) {
            sink.check = new ContextCheck();
        }
        body = () -> {
            sink.touch(1);
            return ONE;
        };
        supplier = () -> {
            sink.touch(1);
            return ONE;
        };
    }

    @Benchmark
    @OperationsPerInvocation(OPS)
    public long startAwait(Counters counters) throws Exception {
        long hopsBefore = sink.hops;
        long sum = switch (side) {
            case "thread" -> switch (way) {
                case "task", "taskNoTrace" -> taskFromThread();
                case "cf" -> cfFromThread();
                case "async" -> TaskLoad.asyncFromThread(dispatcher, OPS, body);
                default -> throw new IllegalArgumentException(way);
            };
            case "coroutine" -> switch (way) {
                case "task", "taskNoTrace" -> TaskLoad.taskInCoroutine(dispatcher, OPS, body);
                case "cf" -> TaskLoad.cfInCoroutine(dispatcher, javaExecutor, OPS, supplier);
                case "async" -> TaskLoad.asyncInCoroutine(dispatcher, OPS, body);
                default -> throw new IllegalArgumentException(way);
            };
            default -> throw new IllegalArgumentException(side);
        };
        if (sum != OPS || sink.hops - hopsBefore != OPS) {
            throw new IllegalStateException(way + ": " + (sink.hops - hopsBefore) + " bodies ran, results sum to "
                    + sum + ", instead of " + OPS);
        }
        counters.ops += OPS;
        return sum + sink.value;
    }

    private long taskFromThread() throws InterruptedException {
        long sum = 0;
        for (int i = 0; i < OPS; i++) {
            sum += Task.start(dispatcher, body).join();
        }
        return sum;
    }

    private long cfFromThread() {
        long sum = 0;
        for (int i = 0; i < OPS; i++) {
            sum += CompletableFuture.supplyAsync(supplier, javaExecutor).join();
        }
        return sum;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        try {
            if (probe == null) {
                throw new IllegalStateException("no iteration ran");
            }
            Map<String, String> values = new LinkedHashMap<>(probe.values());
            if (contextCase.checked()) {
                values.put("carriedHops", Long.toString(measuredCarried));
                values.put("bareHops", Long.toString(measuredBare));
            }
            Report.result("TaskOverheadBenchmark",
                    Map.of("executor", executor, "side", side, "way", way, "context", context), values);
        } finally {
            if (switchesBack != null) {
                switchesBack.run();
            }
            if (singleDispatcher != null) {
                singleDispatcher.close();
            }
        }
    }

    /** Per-iteration counts; see {@link Probe}. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        public long ops;

        @Setup(Level.Iteration)
        public void begin(TaskOverheadBenchmark b) {
            // Iteration set-ups of a Scope.Thread state run on the benchmark thread, before its
            // invocations: the request context is on the thread that starts the tasks.
            if (b.contextCase.carries()) {
                b.request = RequestContext.enter();
            }
            if (b.sink.check != null) {
                b.sink.check.expect(b.request == null ? 0 : b.request.spanId());
            }
            ops = 0;
            if (b.probe == null) {
                List<Integer> tids = new ArrayList<>();
                tids.add(ThreadStats.currentTid()); // the benchmark thread, which waits on side=thread
                if (b.ownerThread != null) {
                    tids.add(ThreadStats.tidOf(EXECUTOR_THREAD));
                }
                b.probe = new Probe("TaskOverhead " + b.executor + "/" + b.side + "/" + b.way, tids,
                        b.ownerThread == null ? List.of(PumpHopBenchmark.DEFAULT_WORKERS) : List.of());
            }
            b.probe.begin();
        }

        @TearDown(Level.Iteration)
        public void end(TaskOverheadBenchmark b, IterationParams iteration) {
            if (b.request != null) {
                b.request.close();
                b.request = null;
            }
            if (b.sink.strays != 0) {
                throw new IllegalStateException(b.sink.strays + " bodies ran off the executor's thread");
            }
            boolean measured = iteration.getType() == IterationType.MEASUREMENT;
            if (b.sink.check != null) {
                ContextCheck.Tally t = b.sink.check.take("TaskOverhead " + b.executor + "/" + b.side + " context=" + b.context,
                        b.contextCase.carries());
                if (measured) {
                    b.measuredCarried += t.carried();
                    b.measuredBare += t.bare();
                }
            }
            b.probe.end(ops, measured);
        }
    }
}
