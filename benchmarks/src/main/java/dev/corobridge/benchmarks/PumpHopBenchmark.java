package dev.corobridge.benchmarks;

import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpConfig;
import dev.corobridge.pump.PumpMetrics;
import io.netty.channel.DefaultEventLoop;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.ExecutorCoroutineDispatcher;
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
 * Round trips {@code withContext(target) { ... }} from {@code n} coroutines on
 * {@code Dispatchers.Default}, with the targets side by side in one run:
 * <ul>
 *   <li>{@code pump}: a {@link MessagePump}'s dispatcher (default spin budget);</li>
 *   <li>{@code executor}: {@code Executors.newSingleThreadExecutor().asCoroutineDispatcher()};</li>
 *   <li>{@code netty}: a Netty {@code DefaultEventLoop} via {@code asCoroutineDispatcher()};</li>
 *   <li>{@code vertx}: the Vert.x 5 context dispatcher ({@code vertx-lang-kotlin-coroutines}'
 *       {@code Context.dispatcher()}) of an event-loop context, one event-loop thread;</li>
 *   <li>{@code limited1}: {@code Dispatchers.Default.limitedParallelism(1)}, which has no thread of
 *       its own and so never hands work between threads: the ceiling.</li>
 * </ul>
 * One operation is one round trip (Default to target and back). Besides ops/s it reports, as
 * {@link AuxCounters} events per iteration, the round trips and the real wake-ups they needed:
 * {@code targetSleeps} are voluntary context switches of the target's thread (comparable across
 * targets), {@code pumpWakeups} the pump's own count of unparks, {@code callerSleeps} the voluntary
 * switches of all {@code DefaultDispatcher} workers. Divide by {@code roundTrips} for per-dispatch
 * figures; a {@code HOP} line per trial prints them already divided, over measurement iterations
 * only, plus the target thread's CPU once traffic has stopped ({@code HOP-IDLE}). The HOP line
 * also splits the CPU per round trip between the target's thread and the callers, with the time
 * each spent runnable but waiting for a core, their preemptions and migrations ({@link ThreadStats.Sched}),
 * and lists every measured iteration with the {@link CoreTransferProbe} round trip before and after
 * it, so that rows measured while the machine's cores were near each other or far apart can be
 * told apart ({@link PumpHopRun} tabulates them by spell). Run with {@code -prof gc} for B/op.
 * Linux only (reads {@code /proc/self/task}).
 *
 * <p>{@code context} (default {@code plain}: the loop above) selects a row of the context
 * propagation cost study ({@link ContextCase}, run by {@link ContextCostRun}): the n coroutines are
 * then corobridge tasks ({@code task(Dispatchers.Default) {}}, started on the benchmark thread) with
 * tracing and propagation switched per row, and in {@code on} the benchmark thread holds a
 * {@link RequestContext} during every iteration, which each task captures and restores at each of
 * its resumes, on the target and back on {@code Dispatchers.Default}. Every study row checks at
 * every hop, on the target's thread, that the context arrived (or, in the other rows, that none
 * did), and fails otherwise.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class PumpHopBenchmark {

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** Round trips per invocation, split evenly over the n coroutines (so n must divide it). */
    static final int TRIPS = 4096;

    static final String PUMP_THREAD = "hop-pump";
    static final String EXECUTOR_THREAD = "hop-executor";
    static final String NETTY_THREAD = "hop-netty";
    static final String SPIN_THREAD = "hop-busyspin";
    /** kotlinx names its workers DefaultDispatcher-worker-N; Linux keeps the first 15 chars. */
    static final String DEFAULT_WORKERS = "DefaultDispatcher-worker";
    /** System property: a file every fork appends its HOP lines to (see {@link PumpHopRun}). */
    static final String REPORT_PROPERTY = "hop.report";
    /** System property: the pump's spin budget in µs, for experiments (default: the pump's default). */
    static final String SPIN_PROPERTY = "hop.pumpSpinMicros";

    @Param({"pump", "executor", "netty", "vertx", "limited1"})
    public String target;

    /** Round trips in flight: 1, 2, 4 ... 256 (the wake-up amortisation study). */
    @Param({"1", "2", "4", "8", "16", "32", "64", "128", "256"})
    public int n;

    /** The context propagation study's row ({@link ContextCase}); {@code plain}: not part of it. */
    @Param({"plain"})
    public String context;

    ContextCase contextCase;
    private Runnable switchesBack;
    /** The request context on the benchmark thread during an iteration of {@code context=on}. */
    RequestContext request;

    CoroutineDispatcher dispatcher;
    MessagePump pump;
    private ExecutorService executor;
    private ExecutorCoroutineDispatcher executorDispatcher;
    private DefaultEventLoop eventLoop;
    private BusySpinExecutor busySpin;
    private AutoCloseable vertx;
    /** The target's own thread and its kernel tid; {@code null} and -1 for limited1. */
    Thread targetThread;
    int targetTid = -1;
    HopSink sink;

    // Sums over measurement iterations only, for the HOP line.
    long measuredTrips;
    long measuredTargetSleeps;
    long measuredPumpWakeups;
    long measuredPumpDispatches;
    long measuredPumpParks;
    long measuredPumpSpinHits;
    long measuredCallerSleeps;
    long measuredCpuNanos;
    /** What the scheduler did to the target's thread and to the callers (Default workers). */
    ThreadStats.Sched measuredTargetSched = ThreadStats.Sched.ZERO;
    ThreadStats.Sched measuredCallersSched = ThreadStats.Sched.ZERO;
    /**
     * Each measurement iteration as {@code before/after:kops}: the {@link CoreTransferProbe} round
     * trip (ns) before and after it and its own round trips per second (thousands).
     */
    final StringBuilder measuredSpells = new StringBuilder();
    /** The callers' CPU by worker (kernel tid), to tell one busy worker from two. */
    final Map<Integer, Long> measuredCallerCpuByTid = new java.util.TreeMap<>();
    long measuredCarried;
    long measuredBare;
    MachineLoad measuredLoad = new MachineLoad(0, 0, 0, 0);

    @Setup(Level.Trial)
    public void start() throws Exception {
        if (TRIPS % n != 0) {
            throw new IllegalArgumentException("n=" + n + " must divide " + TRIPS);
        }
        contextCase = ContextCase.of(context);
        switchesBack = contextCase.applySwitches();
        switch (target) {
            case "pump" -> {
                String spin = System.getProperty(SPIN_PROPERTY);
                pump = spin == null ? MessagePump.start(PUMP_THREAD)
                        : MessagePump.start(PumpConfig.builder(PUMP_THREAD)
                                .spinBudget(Duration.ofNanos(Math.round(Double.parseDouble(spin) * 1000))).build());
                dispatcher = pump.getDispatcher();
                targetThread = pump.getThread();
            }
            case "executor" -> {
                executor = HopLoad.namedSingleThreadExecutor(EXECUTOR_THREAD);
                executorDispatcher = HopLoad.executorDispatcher(executor);
                dispatcher = executorDispatcher;
                targetThread = executor.submit(Thread::currentThread).get();
            }
            case "netty" -> {
                eventLoop = HopLoad.namedEventLoop(NETTY_THREAD);
                dispatcher = HopLoad.executorDispatcher(eventLoop);
                targetThread = eventLoop.submit(Thread::currentThread).get();
            }
            case "vertx" -> {
                HopLoad.VertxTarget v = HopLoad.vertx();
                vertx = v;
                dispatcher = v.getDispatcher();
                targetThread = v.getThread();
            }
            case "limited1" -> dispatcher = HopLoad.limitedOne();
            case "busyspin" -> {
                // Not in the default list: a reference for investigations (-p target=busyspin).
                busySpin = new BusySpinExecutor(SPIN_THREAD);
                dispatcher = HopLoad.plainDispatcher(busySpin);
                targetThread = busySpin.getThread();
            }
            default -> throw new IllegalArgumentException("unknown target " + target);
        }
        if (targetThread != null) {
            // The thread must be running before it can be found by name.
            HopLoad.run(dispatcher, 1, 1, new HopSink(null));
            targetTid = ThreadStats.tidOf(targetThread.getName());
        }
        sink = new HopSink(targetThread);
        if (contextCase.checked()) {
            sink.check = new ContextCheck();
        }
    }

    @Benchmark
    @OperationsPerInvocation(TRIPS)
    public long roundTrip(Counters counters) {
        long done = contextCase.inTasks() ? HopLoad.runTasks(dispatcher, n, TRIPS / n, sink)
                : HopLoad.run(dispatcher, n, TRIPS / n, sink);
        if (done != TRIPS) {
            throw new IllegalStateException(target + ": " + done + " round trips instead of " + TRIPS);
        }
        counters.roundTrips += done;
        return sink.value;
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        try {
            if (measuredTrips == 0) {
                throw new IllegalStateException(target + " n=" + n + ": no round trips measured");
            }
            double trips = measuredTrips;
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "HOP target=%s n=%d context=%s roundTrips=%d targetSleepsPerOp=%s callerSleepsPerOp=%.4f",
                    target, n, context, measuredTrips,
                    targetTid < 0 ? "n/a" : String.format(Locale.ROOT, "%.4f", measuredTargetSleeps / trips),
                    measuredCallerSleeps / trips));
            line.append(" pumpWakeupsPerDispatch=").append(pump == null ? "n/a" : String.format(Locale.ROOT,
                    "%.4f", measuredPumpWakeups / (double) measuredPumpDispatches));
            if (pump != null) {
                line.append(String.format(Locale.ROOT, " pumpParksPerOp=%.4f pumpSpinHitsPerOp=%.4f",
                        measuredPumpParks / trips, measuredPumpSpinHits / trips));
            }
            line.append(String.format(Locale.ROOT, " cpuNsPerOp=%.0f othersCpuPct=%.1f stealPct=%.1f",
                    measuredCpuNanos / trips, measuredLoad.othersPctOfCore(), measuredLoad.stealPctOfCore()));
            ThreadStats.Sched ts = measuredTargetSched;
            ThreadStats.Sched cs = measuredCallersSched;
            line.append(String.format(Locale.ROOT,
                    " targetCpuNsPerOp=%.0f targetWaitNsPerOp=%.0f targetPreemptPerKop=%.2f targetMigratePerKop=%.2f"
                            + " callersCpuNsPerOp=%.0f callersWaitNsPerOp=%.0f callersPreemptPerKop=%.2f callersMigratePerKop=%.2f",
                    ts.cpuNanos() / trips, ts.waitNanos() / trips, 1000 * ts.preemptions() / trips,
                    1000 * ts.migrations() / trips, cs.cpuNanos() / trips, cs.waitNanos() / trips,
                    1000 * cs.preemptions() / trips, 1000 * cs.migrations() / trips));
            line.append(" callersCpuSplitPct=").append(cpuSplit(measuredCallerCpuByTid));
            line.append(" iterations=").append(measuredSpells);
            if (contextCase.checked()) {
                line.append(" carriedHops=").append(measuredCarried).append(" bareHops=").append(measuredBare);
            }
            report(line.toString());
            if (targetThread != null) {
                report(idleCpu());
            }
        } finally {
            if (switchesBack != null) {
                switchesBack.run();
            }
            if (pump != null) {
                pump.shutdown().get(10, TimeUnit.SECONDS);
            }
            if (executorDispatcher != null) {
                executorDispatcher.close();
            }
            if (eventLoop != null) {
                eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
            if (busySpin != null) {
                busySpin.close();
            }
            if (vertx != null) {
                vertx.close();
            }
        }
    }

    /** Each busy worker's share of the callers' CPU, largest first, e.g. {@code 71/29} (workers under 1 % left out). */
    static String cpuSplit(Map<Integer, Long> cpuByTid) {
        long total = cpuByTid.values().stream().mapToLong(Long::longValue).sum();
        if (total <= 0) {
            return "n/a";
        }
        StringBuilder out = new StringBuilder();
        cpuByTid.values().stream().sorted(java.util.Comparator.reverseOrder()).filter(c -> c * 100 >= total).forEach(c -> {
            if (out.length() > 0) {
                out.append('/');
            }
            out.append(Math.round(100.0 * c / total));
        });
        return out.toString();
    }

    /** Prints a result line, and appends it to the file named by {@code -Dhop.report} if set. */
    private static void report(String line) throws IOException {
        System.out.println(line);
        String file = System.getProperty(REPORT_PROPERTY);
        if (file != null) {
            Files.writeString(Path.of(file), line + System.lineSeparator(), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        }
    }

    /**
     * CPU the target thread burns once traffic has stopped: over the first 100 ms (which covers
     * any spin budget) and over the second after that, as % of one core.
     */
    private String idleCpu() throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long id = targetThread.threadId();
        long t0 = System.nanoTime();
        long c0 = mx.getThreadCpuTime(id);
        Thread.sleep(100);
        long t1 = System.nanoTime();
        long c1 = mx.getThreadCpuTime(id);
        long s1 = ThreadStats.voluntarySwitches(targetTid);
        Thread.sleep(1000);
        long t2 = System.nanoTime();
        long c2 = mx.getThreadCpuTime(id);
        long s2 = ThreadStats.voluntarySwitches(targetTid);
        if (c0 < 0 || c2 < 0) {
            throw new IllegalStateException("thread CPU time not available for " + targetThread);
        }
        return String.format(Locale.ROOT,
                "HOP-IDLE target=%s n=%d context=%s cpuFirst100msPct=%.3f cpuNext1sPct=%.3f sleepsNext1s=%d",
                target, n, context, 100.0 * (c1 - c0) / (t1 - t0), 100.0 * (c2 - c1) / (t2 - t1), s2 - s1);
    }

    /**
     * Per-iteration counters, reported by JMH as secondary results ({@code roundTrip:roundTrips}
     * etc.). Events, not rates: divide a wake-up count by {@code roundTrips} of the same row.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Counters {
        public long roundTrips;
        /** Voluntary context switches of the target's own thread (0 for limited1). */
        public long targetSleeps;
        /** The pump's own count of real unparks (0 for the other targets). */
        public long pumpWakeups;
        /** Voluntary context switches of all Default workers, the callers' side. */
        public long callerSleeps;

        private long targetBefore;
        private PumpMetrics pumpBefore;
        private Map<Integer, Long> callersBefore;
        private ThreadStats.Sched targetSchedBefore;
        private Map<Integer, ThreadStats.Sched> callersSchedBefore;
        private MachineLoad loadBefore;
        private long cpuBefore;
        private double probeBefore;
        private long startNanos;

        @Setup(Level.Iteration)
        public void snapshot(PumpHopBenchmark b) {
            // Iteration set-ups of a Scope.Thread state run on the benchmark thread, before its
            // invocations: the request context is on the thread that starts the tasks.
            if (b.contextCase.carries()) {
                b.request = RequestContext.enter();
            }
            if (b.sink.check != null) {
                b.sink.check.expect(b.request == null ? 0 : b.request.spanId());
            }
            try {
                probeBefore = CoreTransferProbe.roundTripNanos(); // first: its CPU is not the iteration's
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            roundTrips = 0;
            targetSleeps = 0;
            pumpWakeups = 0;
            callerSleeps = 0;
            targetBefore = b.targetTid < 0 ? 0 : ThreadStats.voluntarySwitches(b.targetTid);
            pumpBefore = b.pump == null ? null : b.pump.getMetrics();
            callersBefore = ThreadStats.voluntarySwitchesByPrefix(DEFAULT_WORKERS);
            targetSchedBefore = b.targetTid < 0 ? ThreadStats.Sched.ZERO : ThreadStats.sched(b.targetTid);
            callersSchedBefore = ThreadStats.schedByPrefix(DEFAULT_WORKERS);
            loadBefore = MachineLoad.now();
            cpuBefore = OS.getProcessCpuTime();
            startNanos = System.nanoTime();
        }

        @TearDown(Level.Iteration)
        public void account(PumpHopBenchmark b, IterationParams iteration) throws InterruptedException {
            long elapsed = System.nanoTime() - startNanos;
            if (b.request != null) {
                b.request.close();
                b.request = null;
            }
            MachineLoad load = MachineLoad.now().minus(loadBefore);
            long cpu = OS.getProcessCpuTime() - cpuBefore;
            targetSleeps = b.targetTid < 0 ? 0 : ThreadStats.voluntarySwitches(b.targetTid) - targetBefore;
            callerSleeps = ThreadStats.delta(callersBefore, ThreadStats.voluntarySwitchesByPrefix(DEFAULT_WORKERS));
            ThreadStats.Sched targetSched = b.targetTid < 0 ? ThreadStats.Sched.ZERO
                    : ThreadStats.sched(b.targetTid).minus(targetSchedBefore);
            Map<Integer, ThreadStats.Sched> callersSchedNow = ThreadStats.schedByPrefix(DEFAULT_WORKERS);
            ThreadStats.Sched callersSched = ThreadStats.schedDelta(callersSchedBefore, callersSchedNow);
            long pumpDispatches = 0;
            long pumpParks = 0;
            long pumpSpinHits = 0;
            if (b.pump != null) {
                // The pump counts a dispatch after the task returns, and by then the task may have
                // resumed its caller: give the last count a moment to land.
                PumpMetrics now = b.pump.getMetrics();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                while (now.dispatches() - pumpBefore.dispatches() < roundTrips && System.nanoTime() - deadline < 0) {
                    LockSupport.parkNanos(50_000);
                    now = b.pump.getMetrics();
                }
                pumpWakeups = now.wakeups() - pumpBefore.wakeups();
                pumpDispatches = now.dispatches() - pumpBefore.dispatches();
                pumpParks = now.parks() - pumpBefore.parks();
                pumpSpinHits = now.spinHits() - pumpBefore.spinHits();
            }
            // A run that did no work must fail, not print a plausible zero.
            if (roundTrips == 0 || b.sink.hops == 0) {
                throw new IllegalStateException(b.target + " n=" + b.n + ": iteration ran no round trips");
            }
            if (b.sink.strays != 0) {
                throw new IllegalStateException(b.target + ": " + b.sink.strays + " hops ran off the target thread");
            }
            if (b.pump != null && pumpDispatches < roundTrips) {
                throw new IllegalStateException("pump counted " + pumpDispatches + " dispatches for "
                        + roundTrips + " round trips");
            }
            ContextCheck.Tally tally = b.sink.check == null ? null
                    : b.sink.check.take(b.target + " n=" + b.n + " context=" + b.context, b.contextCase.carries());
            if (iteration.getType() == IterationType.MEASUREMENT) {
                b.measuredTrips += roundTrips;
                b.measuredTargetSleeps += targetSleeps;
                b.measuredPumpWakeups += pumpWakeups;
                b.measuredPumpDispatches += pumpDispatches;
                b.measuredPumpParks += pumpParks;
                b.measuredPumpSpinHits += pumpSpinHits;
                b.measuredCallerSleeps += callerSleeps;
                b.measuredCpuNanos += cpu;
                b.measuredTargetSched = b.measuredTargetSched.plus(targetSched);
                b.measuredCallersSched = b.measuredCallersSched.plus(callersSched);
                callersSchedNow.forEach((tid, now) -> b.measuredCallerCpuByTid.merge(tid,
                        now.cpuNanos() - callersSchedBefore.getOrDefault(tid, ThreadStats.Sched.ZERO).cpuNanos(), Long::sum));
                b.measuredLoad = b.measuredLoad.plus(load);
                double probeAfter = CoreTransferProbe.roundTripNanos(); // after every counter was read
                if (b.measuredSpells.length() > 0) {
                    b.measuredSpells.append(',');
                }
                b.measuredSpells.append(String.format(Locale.ROOT, "%.0f/%.0f:%.0f", probeBefore, probeAfter,
                        roundTrips * 1e6 / elapsed));
                if (tally != null) {
                    b.measuredCarried += tally.carried();
                    b.measuredBare += tally.bare();
                }
            }
        }
    }
}
