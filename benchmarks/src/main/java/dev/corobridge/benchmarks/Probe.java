package dev.corobridge.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The side counts of one benchmark trial, taken around every iteration and summed over the
 * measurement iterations only: operations, wake-ups (voluntary context switches of the threads
 * that matter, from {@link ThreadStats}), process CPU time per operation, the threads that were
 * busy (at least {@link #BUSY_SHARE} of a core) and the threads that ran at all (at least one
 * 10 ms clock tick; JIT and GC threads left out of both, the most in any one measurement
 * iteration), and the CPU the rest of the machine used ({@link MachineLoad}). {@link #end} throws when an
 * iteration did no work, so an empty run can never print a number.
 */
final class Probe {

    /** A thread counts as busy with at least this share of a core during an iteration. */
    static final double BUSY_SHARE = 0.10;

    private static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private final String what;
    /** Threads whose sleeps count as wake-ups: exact tids and name prefixes. */
    private final List<Integer> sleepTids;
    private final List<String> sleepPrefixes;

    // The iteration in progress.
    private MachineLoad load0;
    private long cpu0;
    private long wall0;
    private long sleeps0;
    private Map<Integer, Long> prefixSleeps0;
    private Map<String, Long> ticks0;

    // Sums over measurement iterations.
    private long ops;
    private long wallNanos;
    private long cpuNanos;
    private long sleeps;
    private MachineLoad load = new MachineLoad(0, 0, 0, 0);
    private ThreadStats.BusyThreads busiest = new ThreadStats.BusyThreads(0, "");
    private ThreadStats.BusyThreads ran = new ThreadStats.BusyThreads(0, "");

    Probe(String what, List<Integer> sleepTids, List<String> sleepPrefixes) {
        this.what = what;
        this.sleepTids = List.copyOf(sleepTids);
        this.sleepPrefixes = List.copyOf(sleepPrefixes);
    }

    void begin() {
        ticks0 = ThreadStats.cpuTicksByThread();
        sleeps0 = tidSleeps();
        prefixSleeps0 = prefixSleeps();
        load0 = MachineLoad.now();
        cpu0 = OS.getProcessCpuTime();
        wall0 = System.nanoTime();
    }

    /** Ends an iteration that did {@code iterationOps} operations; sums it if {@code measured}. */
    void end(long iterationOps, boolean measured) {
        long wall = System.nanoTime() - wall0;
        long cpu = OS.getProcessCpuTime() - cpu0;
        MachineLoad l = MachineLoad.now().minus(load0);
        long s = tidSleeps() - sleeps0 + ThreadStats.delta(prefixSleeps0, prefixSleeps());
        Map<String, Long> ticks = ThreadStats.cpuTicksByThread();
        ThreadStats.BusyThreads busy = ThreadStats.busyThreads(ticks0, ticks, wall, BUSY_SHARE);
        ThreadStats.BusyThreads any = ThreadStats.busyThreads(ticks0, ticks, wall, 0);
        if (iterationOps <= 0) {
            throw new IllegalStateException(what + ": an iteration counted no operations");
        }
        if (cpu <= 0) {
            throw new IllegalStateException(what + ": process CPU time did not move (" + cpu + " ns)");
        }
        if (measured) {
            ops += iterationOps;
            wallNanos += wall;
            cpuNanos += cpu;
            sleeps += s;
            load = load.plus(l);
            if (busy.count() > busiest.count()) {
                busiest = busy;
            }
            if (any.count() > ran.count()) {
                ran = any;
            }
        }
    }

    /** The trial's figures, for a {@link Report} line; throws if nothing was measured. */
    Map<String, String> values() {
        if (ops == 0) {
            throw new IllegalStateException(what + ": no operations measured");
        }
        Map<String, String> v = new LinkedHashMap<>();
        v.put("ops", Long.toString(ops));
        v.put("opsPerSec", String.format(Locale.ROOT, "%.0f", ops * 1e9 / wallNanos));
        v.put("wakeupsPerOp", String.format(Locale.ROOT, "%.4f", sleeps / (double) ops));
        v.put("cpuNsPerOp", String.format(Locale.ROOT, "%.0f", cpuNanos / (double) ops));
        v.put("cpuCores", String.format(Locale.ROOT, "%.2f", cpuNanos / (double) wallNanos));
        v.put("busyThreads", Integer.toString(busiest.count()));
        v.put("busyThreadNames", busiest.names().isEmpty() ? "-" : busiest.names());
        v.put("threadsRan", Integer.toString(ran.count()));
        v.put("threadsRanNames", ran.names().isEmpty() ? "-" : ran.names());
        v.put("othersCpuPct", String.format(Locale.ROOT, "%.1f", load.othersPctOfCore()));
        v.put("stealPct", String.format(Locale.ROOT, "%.1f", load.stealPctOfCore()));
        return v;
    }

    private long tidSleeps() {
        long sum = 0;
        for (int tid : sleepTids) {
            sum += ThreadStats.voluntarySwitches(tid);
        }
        return sum;
    }

    private Map<Integer, Long> prefixSleeps() {
        Map<Integer, Long> all = new java.util.HashMap<>();
        for (String p : sleepPrefixes) {
            all.putAll(ThreadStats.voluntarySwitchesByPrefix(p));
        }
        return all;
    }
}
