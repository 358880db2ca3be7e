package dev.corobridge.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-thread kernel counters of this JVM, read from {@code /proc/self/task}. A voluntary context
 * switch is the thread blocking (park, futex wait, sleep), so for a thread that only waits for
 * work, the voluntary switches are its real sleeps and hence the real wake-ups it needed, whatever
 * executor it runs. Linux only.
 */
final class ThreadStats {

    private static final Path TASKS = Path.of("/proc/self/task");
    /** Linux keeps 15 characters of a thread name. */
    private static final int COMM_LENGTH = 15;

    private ThreadStats() {
    }

    /** The kernel thread id of the live thread whose name is {@code threadName}; throws if none or several. */
    static int tidOf(String threadName) {
        String comm = threadName.length() > COMM_LENGTH ? threadName.substring(0, COMM_LENGTH) : threadName;
        Map<Integer, String> names = commByTid();
        int found = -1;
        for (Map.Entry<Integer, String> e : names.entrySet()) {
            if (e.getValue().equals(comm)) {
                if (found >= 0) {
                    throw new IllegalStateException("two threads named '" + comm + "': give them unique names");
                }
                found = e.getKey();
            }
        }
        if (found < 0) {
            throw new IllegalStateException("no thread named '" + comm + "' in " + TASKS + " " + names.values());
        }
        return found;
    }

    /** {@code voluntary_ctxt_switches} of thread {@code tid}. */
    static long voluntarySwitches(int tid) {
        Long v = readVoluntary(TASKS.resolve(Integer.toString(tid)));
        if (v == null) {
            throw new IllegalStateException("thread " + tid + " has exited");
        }
        return v;
    }

    /** {@code voluntary_ctxt_switches} of every live thread whose name starts with {@code prefix}, by tid. */
    static Map<Integer, Long> voluntarySwitchesByPrefix(String prefix) {
        String p = prefix.length() > COMM_LENGTH ? prefix.substring(0, COMM_LENGTH) : prefix;
        Map<Integer, Long> out = new HashMap<>();
        for (Map.Entry<Integer, String> e : commByTid().entrySet()) {
            if (e.getValue().startsWith(p)) {
                Long v = readVoluntary(TASKS.resolve(e.getKey().toString()));
                if (v != null) {
                    out.put(e.getKey(), v);
                }
            }
        }
        return out;
    }

    /**
     * Switches between two {@link #voluntarySwitchesByPrefix} snapshots: threads born in between
     * count from zero; threads that died in between are lost (idle pool threads die after a minute
     * or more, far longer than an iteration).
     */
    static long delta(Map<Integer, Long> before, Map<Integer, Long> after) {
        long sum = 0;
        for (Map.Entry<Integer, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    /**
     * What the scheduler did to one thread, or the sum over several: CPU time it ran, time it
     * waited runnable for a core ({@code run_delay}: the cost of sharing cores, which the voluntary
     * switches do not show), the times it was preempted (involuntary switches) and moved to another
     * core (migrations). From {@code /proc/self/task/<tid>/schedstat} and {@code sched}.
     */
    record Sched(long cpuNanos, long waitNanos, long preemptions, long migrations) {
        static final Sched ZERO = new Sched(0, 0, 0, 0);

        Sched plus(Sched o) {
            return new Sched(cpuNanos + o.cpuNanos, waitNanos + o.waitNanos, preemptions + o.preemptions,
                    migrations + o.migrations);
        }

        Sched minus(Sched o) {
            return new Sched(cpuNanos - o.cpuNanos, waitNanos - o.waitNanos, preemptions - o.preemptions,
                    migrations - o.migrations);
        }
    }

    /** {@link Sched} of thread {@code tid}, or {@code null} if it has exited. */
    static Sched sched(int tid) {
        Path task = TASKS.resolve(Integer.toString(tid));
        try {
            String[] stat = Files.readString(task.resolve("schedstat")).strip().split("\\s+");
            long preemptions = -1;
            long migrations = -1;
            for (String line : Files.readAllLines(task.resolve("sched"))) {
                if (line.startsWith("nr_involuntary_switches")) {
                    preemptions = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                } else if (line.startsWith("se.nr_migrations")) {
                    migrations = Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                }
            }
            if (preemptions < 0 || migrations < 0) {
                throw new IllegalStateException("no switch or migration counts in " + task.resolve("sched"));
            }
            return new Sched(Long.parseLong(stat[0]), Long.parseLong(stat[1]), preemptions, migrations);
        } catch (IOException e) {
            if (exited(task, e)) {
                return null;
            }
            throw new UncheckedIOException(e);
        }
    }

    /** {@link Sched} of every live thread whose name starts with {@code prefix}, by tid. */
    static Map<Integer, Sched> schedByPrefix(String prefix) {
        String p = prefix.length() > COMM_LENGTH ? prefix.substring(0, COMM_LENGTH) : prefix;
        Map<Integer, Sched> out = new HashMap<>();
        for (Map.Entry<Integer, String> e : commByTid().entrySet()) {
            if (e.getValue().startsWith(p)) {
                Sched s = sched(e.getKey());
                if (s != null) {
                    out.put(e.getKey(), s);
                }
            }
        }
        return out;
    }

    /** The sum of what changed between two {@link #schedByPrefix} snapshots (see {@link #delta}). */
    static Sched schedDelta(Map<Integer, Sched> before, Map<Integer, Sched> after) {
        Sched sum = Sched.ZERO;
        for (Map.Entry<Integer, Sched> e : after.entrySet()) {
            sum = sum.plus(e.getValue().minus(before.getOrDefault(e.getKey(), Sched.ZERO)));
        }
        return sum;
    }

    /** The kernel thread id of the calling thread (from the {@code /proc/thread-self} link). */
    static int currentTid() {
        try {
            Path link = Files.readSymbolicLink(Path.of("/proc/thread-self")); // "<pid>/task/<tid>"
            return Integer.parseInt(link.getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * CPU time (utime + stime, in clock ticks of 10 ms) of every live thread of this JVM, by name:
     * threads of the same name without their trailing number ({@code DefaultDispatcher-worker-3} is
     * {@code DefaultDispatcher-worker-}) are kept apart by tid in the key {@code name#tid}.
     */
    static Map<String, Long> cpuTicksByThread() {
        Map<String, Long> out = new HashMap<>();
        for (Map.Entry<Integer, String> e : commByTid().entrySet()) {
            try {
                String stat = Files.readString(TASKS.resolve(e.getKey().toString()).resolve("stat"));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
                out.put(e.getValue() + "#" + e.getKey(), Long.parseLong(f[11]) + Long.parseLong(f[12]));
            } catch (IOException x) {
                if (!exited(TASKS.resolve(e.getKey().toString()), x)) {
                    throw new UncheckedIOException(x);
                } // else: exited while we listed
            }
        }
        return out;
    }

    /**
     * The threads that used at least {@code minShare} of a core between two
     * {@link #cpuTicksByThread} snapshots taken {@code wallNanos} apart, as a count and a summary
     * such as {@code ring-+DefaultDispatcher-workerx2} (names as Linux keeps them, 15 characters, without their trailing digits; JIT and GC threads left out).
     */
    static BusyThreads busyThreads(Map<String, Long> before, Map<String, Long> after, long wallNanos, double minShare) {
        double ticks = wallNanos / 1e7; // 100 ticks per second
        Map<String, Integer> byName = new java.util.TreeMap<>();
        int count = 0;
        for (Map.Entry<String, Long> e : after.entrySet()) {
            long used = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            if (used >= minShare * ticks && used > 0 && !isJvmInternal(e.getKey())) {
                count++;
                String name = e.getKey().substring(0, e.getKey().lastIndexOf('#')).replaceAll("[-#]?\\d+$", "").replace(' ', '_');
                byName.merge(name, 1, Integer::sum);
            }
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Integer> e : byName.entrySet()) {
            if (sb.length() > 0) {
                sb.append("+");
            }
            sb.append(e.getKey());
            if (e.getValue() > 1) {
                sb.append('x').append(e.getValue());
            }
        }
        return new BusyThreads(count, sb.toString());
    }

    /** The JIT compilers' and the garbage collector's threads: their CPU counts, but they are not "used" by the work. */
    private static boolean isJvmInternal(String nameAndTid) {
        return nameAndTid.startsWith("C1 Compiler") || nameAndTid.startsWith("C2 Compiler") || nameAndTid.startsWith("GC Thread")
                || nameAndTid.startsWith("G1 ") || nameAndTid.startsWith("VM Thread");
    }

    /** See {@link #busyThreads}. */
    record BusyThreads(int count, String names) {
    }

    private static Map<Integer, String> commByTid() {
        Map<Integer, String> out = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                try {
                    out.put(Integer.parseInt(task.getFileName().toString()),
                            Files.readString(task.resolve("comm")).strip());
                } catch (IOException e) {
                    if (!exited(task, e)) {
                        throw e;
                    } // else: the thread exited while we listed: not one of ours to find
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static Long readVoluntary(Path task) {
        try {
            for (String line : Files.readAllLines(task.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).strip());
                }
            }
            throw new IllegalStateException("no voluntary_ctxt_switches in " + task.resolve("status"));
        } catch (IOException e) {
            if (exited(task, e)) {
                return null;
            }
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Whether reading a file of {@code task} failed because the thread exited meanwhile: its
     * directory is gone, or still listed but its files answer "No such process" (ESRCH), which Java
     * reports as a plain {@link IOException}.
     */
    private static boolean exited(Path task, IOException e) {
        return e instanceof NoSuchFileException || !Files.exists(task)
                || (e.getMessage() != null && e.getMessage().contains("No such process"));
    }
}
