package dev.corobridge.benchmarks;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link PumpHopBenchmark} (with {@code -prof gc} unless other profilers are given; any JMH
 * option may be passed) and then prints one summary table: ops/s, ratio to the executor
 * dispatcher, wake-ups per dispatch, B/op, the load of the rest of the machine, the idle CPU of
 * each target thread, and the pump's goals as MET or MISSED (at every N, 1.2x the best of the
 * executor, Netty's and Vert.x's event loops, with the wake-up counters of both beside it).
 */
public final class PumpHopRun {

    private static final String[] TARGETS = {"pump", "executor", "netty", "vertx", "limited1"};
    private static final int[] NS = {1, 2, 4, 8, 16, 32, 64, 128, 256};

    private PumpHopRun() {
    }

    public static void main(String[] args) throws Exception {
        Path csv = null;
        if (args.length >= 2 && args[0].equals("--csv")) {
            csv = Path.of(args[1]);
            args = java.util.Arrays.copyOfRange(args, 2, args.length);
        }
        CommandLineOptions cli = new CommandLineOptions(args);
        if (!List.copyOf(cli.getParameter("context").orElse(List.of("plain"))).equals(List.of("plain"))) {
            // Its tables are by target and N; the study's rows have their own runner and table.
            throw new IllegalArgumentException("PumpHopRun compares targets with context=plain; for the context "
                    + "propagation study use ContextCostRun (benchmarks/run-context-cost)");
        }
        Path report = Files.createTempFile("pump-hop-", ".txt");
        ChainedOptionsBuilder options = new OptionsBuilder().parent(cli);
        if (cli.getIncludes().isEmpty()) {
            options.include(PumpHopBenchmark.class.getName() + "\\.roundTrip$");
        }
        if (cli.getProfilers().isEmpty()) {
            options.addProfiler(GCProfiler.class);
        }
        // Our own jvmArgsAppend would replace the command line's: keep both.
        List<String> append = new ArrayList<>(cli.getJvmArgsAppend().orElse(List.of()));
        append.add("-D" + PumpHopBenchmark.REPORT_PROPERTY + "=" + report);
        options.jvmArgsAppend(append.toArray(String[]::new));

        awaitOtherJmhRuns();
        Collection<RunResult> results = new Runner(options.build()).run();
        Map<String, Map<String, String>> hop = readHopLines(report, "HOP ");
        Map<String, Map<String, String>> idle = readHopLines(report, "HOP-IDLE ");
        Map<String, List<double[]>> spells = readIterations(report);
        Files.deleteIfExists(report);
        System.out.print(summary(results, hop, idle));
        System.out.print(bySpell(spells));
        if (csv != null) {
            writeCsv(csv, results, hop);
        }
    }

    /** The results by {@link #key(String, int)} of their target and n. */
    private static Map<String, RunResult> byTargetAndN(Collection<RunResult> results) {
        Map<String, RunResult> byKey = new HashMap<>();
        for (RunResult r : results) {
            byKey.put(key(r.getParams().getParam("target"), Integer.parseInt(r.getParams().getParam("n"))), r);
        }
        return byKey;
    }

    /** One {@link Csv} row per result: peer = target, group = "N=n", x = n. */
    static void writeCsv(Path csv, Collection<RunResult> results, Map<String, Map<String, String>> hop) throws Exception {
        Map<String, RunResult> byKey = byTargetAndN(results);
        for (int n : NS) {
            for (String t : TARGETS) {
                RunResult r = byKey.get(key(t, n));
                if (r == null) {
                    continue;
                }
                Map<String, String> h = hop.getOrDefault(key(t, n), Map.of());
                RunResult pump = byKey.get(key("pump", n));
                double ops = r.getPrimaryResult().getScore();
                Csv.append(csv, new Csv.Row("PumpHopBenchmark", "N=" + n, t, "pump", Integer.toString(n), ops,
                        r.getPrimaryResult().getScoreError(), pump == null ? Double.NaN : ops / pump.getPrimaryResult().getScore(),
                        h.getOrDefault("targetSleepsPerOp", "n/a"), bytesPerOp(r), h.getOrDefault("cpuNsPerOp", "?"),
                        h.getOrDefault("othersCpuPct", "?"), h.getOrDefault("pumpWakeupsPerDispatch", "n/a"),
                        h.getOrDefault("callerSleepsPerOp", "?")));
            }
        }
    }

    /**
     * JMH refuses to start while another JMH run on the machine holds its lock file. Two
     * benchmarks at once would skew each other anyway, so wait for the other one to finish
     * instead of failing.
     */
    static void awaitOtherJmhRuns() throws Exception {
        Path lock = Path.of(System.getProperty("java.io.tmpdir"), "jmh.lock");
        boolean told = false;
        while (true) {
            try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock held = ch.tryLock()) {
                if (held != null) {
                    return;
                }
            }
            if (!told) {
                System.out.println("# another JMH run holds " + lock + "; waiting for it to finish");
                told = true;
            }
            Thread.sleep(2000);
        }
    }

    static String summary(Collection<RunResult> results, Map<String, Map<String, String>> hop,
                          Map<String, Map<String, String>> idle) {
        Map<String, RunResult> byKey = byTargetAndN(results);
        StringBuilder out = new StringBuilder();
        out.append("\n## PumpHopBenchmark summary\n\n");
        out.append("| target | N | round trips/s | ± (99.9%) | × executor | ns/round trip | target sleeps/op | pump wake-ups/dispatch "
                + "| caller sleeps/op | B/op | CPU ns/op | others' CPU % of a core | steal % |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (int n : NS) {
            for (String t : TARGETS) {
                RunResult r = byKey.get(key(t, n));
                if (r == null) {
                    continue;
                }
                Map<String, String> h = hop.getOrDefault(key(t, n), Map.of());
                out.append(String.format(Locale.ROOT, "| %s | %d | %,.0f | %,.0f | %s | %,.0f | %s | %s | %s | %s | %s | %s | %s |%n",
                        t, n, r.getPrimaryResult().getScore(), r.getPrimaryResult().getScoreError(),
                        ratio(byKey, t, n), 1e9 / r.getPrimaryResult().getScore(), h.getOrDefault("targetSleepsPerOp", "?"),
                        h.getOrDefault("pumpWakeupsPerDispatch", "?"), h.getOrDefault("callerSleepsPerOp", "?"),
                        bytesPerOp(r), h.getOrDefault("cpuNsPerOp", "?"), h.getOrDefault("othersCpuPct", "?"),
                        h.getOrDefault("stealPct", "?")));
            }
        }
        for (int n : NS) {
            for (String t : TARGETS) {
                if (!byKey.containsKey(key(t, n))) {
                    out.append(String.format(Locale.ROOT, "| %s | %d | no result (failed, or not selected) |%n", t, n));
                }
            }
        }
        out.append("\nIdle CPU of the target thread after the last iteration (% of a core):\n\n");
        out.append("| target | after N= | first 100 ms | next 1 s | sleeps in that 1 s |\n|---|---:|---:|---:|---:|\n");
        for (int n : NS) {
            for (String t : TARGETS) {
                Map<String, String> i = idle.get(key(t, n));
                if (i != null) {
                    out.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s |%n", t, n,
                            i.get("cpuFirst100msPct"), i.get("cpuNext1sPct"), i.get("sleepsNext1s")));
                }
            }
        }
        out.append("\nGoals for the pump:\n");
        for (int n : NS) {
            leadOverBestPeer(out, byKey, hop, n);
        }
        amortisation(out, byKey, hop);
        for (int n : NS) {
            RunResult p = byKey.get(key("pump", n));
            RunResult e = byKey.get(key("executor", n));
            if (p != null && e != null && norm(p) >= 0 && norm(e) >= 0) {
                out.append(String.format(Locale.ROOT, "- N=%d B/op pump %.0f <= executor %.0f: %s%n", n,
                        norm(p), norm(e), norm(p) <= norm(e) ? "MET" : "MISSED"));
            }
        }
        double worstIdle = -1;
        for (int n : NS) {
            Map<String, String> i = idle.get(key("pump", n));
            if (i != null) {
                worstIdle = Math.max(worstIdle, Double.parseDouble(i.get("cpuNext1sPct")));
            }
        }
        if (worstIdle >= 0) {
            out.append(String.format(Locale.ROOT, "- idle CPU of the pump thread (worst trial) %.3f%% <= 1%%: %s%n",
                    worstIdle, worstIdle <= 1.0 ? "MET" : "MISSED"));
        }
        return out.toString();
    }

    /**
     * The wake-up amortisation study: the pump's wake-ups per dispatch fall with load, and ns per
     * dispatch must fall as load rises: the least-squares slope of log(ns) over log(N) is negative and the largest N is cheaper than N=1. Doublings
     * that got more than 10 % slower are listed (on a shared machine a row's load can differ from
     * its neighbour's), not counted against the trend.
     */
    private static void amortisation(StringBuilder out, Map<String, RunResult> byKey, Map<String, Map<String, String>> hop) {
        StringBuilder line = new StringBuilder("- amortisation, pump ns/dispatch (wake-ups/dispatch) by N:");
        List<double[]> points = new ArrayList<>();
        StringBuilder rises = new StringBuilder();
        double prev = Double.NaN;
        int prevN = 0;
        for (int n : NS) {
            RunResult p = byKey.get(key("pump", n));
            if (p == null) {
                continue;
            }
            double ns = 1e9 / p.getPrimaryResult().getScore();
            Map<String, String> h = hop.getOrDefault(key("pump", n), Map.of());
            line.append(String.format(Locale.ROOT, " %d: %.0f (%s);", n, ns, h.getOrDefault("pumpWakeupsPerDispatch", "?")));
            if (!Double.isNaN(prev) && ns > 1.10 * prev) {
                rises.append(String.format(Locale.ROOT, " %d->%d +%.0f %%", prevN, n, 100 * (ns / prev - 1)));
            }
            points.add(new double[] {Math.log(n), Math.log(ns)});
            prev = ns;
            prevN = n;
        }
        if (points.size() < 2) {
            return;
        }
        double mx = 0;
        double my = 0;
        for (double[] q : points) {
            mx += q[0] / points.size();
            my += q[1] / points.size();
        }
        double sxy = 0;
        double sxx = 0;
        for (double[] q : points) {
            sxy += (q[0] - mx) * (q[1] - my);
            sxx += (q[0] - mx) * (q[0] - mx);
        }
        double slope = sxy / sxx;
        double first = Math.exp(points.get(0)[1]);
        double last = Math.exp(points.get(points.size() - 1)[1]);
        out.append(line).append('\n');
        out.append(String.format(Locale.ROOT,
                "- ns/dispatch falls as load rises (N=%d..%d: %.0f -> %.0f ns; slope of log ns over log N %.2f; doublings > 10 %% slower:%s): %s%n",
                NS[0], NS[NS.length - 1], first, last, slope, rises.length() == 0 ? " none" : rises,
                slope < 0 && last < first ? "MET" : "MISSED"));
    }

    /** The peers a user would pick instead of the pump: the goal is the pump at 1.2x the best of them. */
    private static final List<String> PEERS = List.of("executor", "netty", "vertx");
    private static final double LEAD = 1.2;

    /**
     * The pump's throughput over the best peer's at {@code n} in flight (goal: at least {@link #LEAD}),
     * with the wake-up and CPU counters of both beside it, so that a miss can be explained from them.
     */
    private static void leadOverBestPeer(StringBuilder out, Map<String, RunResult> byKey,
                                         Map<String, Map<String, String>> hop, int n) {
        RunResult p = byKey.get(key("pump", n));
        if (p == null) {
            return;
        }
        String best = null;
        double bestScore = -1;
        for (String peer : PEERS) {
            RunResult r = byKey.get(key(peer, n));
            if (r != null && r.getPrimaryResult().getScore() > bestScore) {
                best = peer;
                bestScore = r.getPrimaryResult().getScore();
            }
        }
        if (best == null) {
            return;
        }
        double x = p.getPrimaryResult().getScore() / bestScore;
        Map<String, String> ph = hop.getOrDefault(key("pump", n), Map.of());
        Map<String, String> bh = hop.getOrDefault(key(best, n), Map.of());
        out.append(String.format(Locale.ROOT,
                "- N=%d throughput %.2fx the best peer (%s) >= %.1fx: %s (pump: wake-ups/dispatch %s, caller sleeps/op %s, CPU ns/op %s%s;"
                        + " %s: target sleeps/op %s, caller sleeps/op %s, CPU ns/op %s%s; others' CPU %s %%)%n",
                n, x, best, LEAD, x >= LEAD ? "MET" : "MISSED",
                ph.getOrDefault("pumpWakeupsPerDispatch", "?"), ph.getOrDefault("callerSleepsPerOp", "?"), ph.getOrDefault("cpuNsPerOp", "?"),
                threads(ph), best, bh.getOrDefault("targetSleepsPerOp", "?"), bh.getOrDefault("callerSleepsPerOp", "?"),
                bh.getOrDefault("cpuNsPerOp", "?"), threads(bh), ph.getOrDefault("othersCpuPct", "?")));
    }

    /** The CPU per op of the target's thread and of the callers, and how long each waited for a core. */
    private static String threads(Map<String, String> h) {
        return String.format(Locale.ROOT, ", of which target %s (+%s waiting for a core), callers %s (+%s waiting)",
                h.getOrDefault("targetCpuNsPerOp", "?"), h.getOrDefault("targetWaitNsPerOp", "?"),
                h.getOrDefault("callersCpuNsPerOp", "?"), h.getOrDefault("callersWaitNsPerOp", "?"));
    }

    private static String ratio(Map<String, RunResult> byKey, String t, int n) {
        RunResult e = byKey.get(key("executor", n));
        RunResult r = byKey.get(key(t, n));
        return e == null ? "-" : String.format(Locale.ROOT, "%.2f",
                r.getPrimaryResult().getScore() / e.getPrimaryResult().getScore());
    }

    private static double norm(RunResult r) {
        Result<?> b = r.getSecondaryResults().get("gc.alloc.rate.norm");
        return b == null ? -1 : b.getScore();
    }

    private static String bytesPerOp(RunResult r) {
        double b = norm(r);
        return b < 0 ? "-" : String.format(Locale.ROOT, "%.0f", b);
    }

    private static String key(String target, int n) {
        return target + "/" + n;
    }

    /**
     * Every measured iteration of every fork by target/n, as {probe before, probe after, round
     * trips/s} (the {@code iterations=} field of the HOP lines, see {@link CoreTransferProbe}).
     */
    static Map<String, List<double[]>> readIterations(Path file) throws Exception {
        Map<String, List<double[]>> out = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.startsWith("HOP ")) {
                continue;
            }
            String target = null;
            int n = 0;
            String iterations = null;
            for (String pair : line.substring(4).trim().split("\\s+")) {
                int eq = pair.indexOf('=');
                switch (pair.substring(0, eq)) {
                    case "target" -> target = pair.substring(eq + 1);
                    case "n" -> n = Integer.parseInt(pair.substring(eq + 1));
                    case "iterations" -> iterations = pair.substring(eq + 1);
                    default -> { }
                }
            }
            if (target == null || iterations == null || iterations.isEmpty()) {
                continue;
            }
            List<double[]> list = out.computeIfAbsent(key(target, n), k -> new ArrayList<>());
            for (String it : iterations.split(",")) {
                String[] probes = it.substring(0, it.indexOf(':')).split("/");
                list.add(new double[] {Double.parseDouble(probes[0]), Double.parseDouble(probes[1]),
                        1000 * Double.parseDouble(it.substring(it.indexOf(':') + 1))});
            }
        }
        return out;
    }

    /**
     * The same round trips split by the spell of the machine's core-to-core transfer time each
     * iteration ran in ({@link CoreTransferProbe}): a target's mean over its "near" iterations and
     * over its "far" ones, and the pump over the best peer within each spell. Rows measured in
     * different spells differ by up to 3x whatever the target; within one spell they compare.
     */
    static String bySpell(Map<String, List<double[]>> spells) {
        if (spells.isEmpty()) {
            return "";
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%nBy the cores' transfer spell (round trip of a cache line between the two cores,"
                + " probed before and after each iteration: near < %.0f ns, far > %.0f ns; thousands of round trips/s,"
                + " mean of the iterations in that spell, their count in brackets):%n%n", CoreTransferProbe.NEAR_NS, CoreTransferProbe.FAR_NS));
        out.append("| N | target | near | far | mixed |\n|---:|---|---:|---:|---:|\n");
        StringBuilder lead = new StringBuilder();
        for (int n : NS) {
            Map<String, double[]> near = new HashMap<>();
            Map<String, double[]> far = new HashMap<>();
            for (String t : TARGETS) {
                List<double[]> its = spells.get(key(t, n));
                if (its == null) {
                    continue;
                }
                Map<String, double[]> sums = new HashMap<>(); // spell -> {sum, count}
                for (double[] it : its) {
                    double[] sc = sums.computeIfAbsent(CoreTransferProbe.spell(it[0], it[1]), k -> new double[2]);
                    sc[0] += it[2];
                    sc[1]++;
                }
                out.append(String.format(Locale.ROOT, "| %d | %s | %s | %s | %s |%n", n, t, cell(sums.get("near")),
                        cell(sums.get("far")), cell(sums.get("mixed"))));
                if (sums.containsKey("near")) {
                    near.put(t, sums.get("near"));
                }
                if (sums.containsKey("far")) {
                    far.put(t, sums.get("far"));
                }
            }
            lead.append(String.format(Locale.ROOT, "- N=%d pump / best peer: near %s, far %s%n", n, leadIn(near), leadIn(far)));
        }
        return out.append('\n').append(lead).toString();
    }

    private static String cell(double[] sumCount) {
        return sumCount == null ? "-" : String.format(Locale.ROOT, "%,.0f (%d)", sumCount[0] / sumCount[1] / 1000, (int) sumCount[1]);
    }

    /** The pump's mean over the best peer's mean within one spell, or "-" if either is missing. */
    private static String leadIn(Map<String, double[]> spell) {
        double[] p = spell.get("pump");
        double best = -1;
        String bestPeer = null;
        for (String peer : PEERS) {
            double[] r = spell.get(peer);
            if (r != null && r[0] / r[1] > best) {
                best = r[0] / r[1];
                bestPeer = peer;
            }
        }
        return p == null || bestPeer == null ? "-"
                : String.format(Locale.ROOT, "%.2fx (%s)", p[0] / p[1] / best, bestPeer);
    }

    /** Lines "PREFIX k=v k=v ..." by target/n. */
    private static Map<String, Map<String, String>> readHopLines(Path file, String prefix) throws Exception {
        Map<String, Map<String, String>> out = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.startsWith(prefix)) {
                continue;
            }
            Map<String, String> kv = new HashMap<>();
            for (String pair : line.substring(prefix.length()).trim().split("\\s+")) {
                int eq = pair.indexOf('=');
                kv.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            out.put(key(kv.get("target"), Integer.parseInt(kv.get("n"))), kv);
        }
        return out;
    }
}
