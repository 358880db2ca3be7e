package dev.corobridge.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs TaskOverheadBenchmark, RingFileReadBenchmark, WriteSyncBenchmark and
 * SyncReadWriteMutexBenchmark (or the ones selected
 * with a JMH include regex), with {@code -prof gc} unless other profilers are given, and prints one
 * Markdown table per benchmark: ops/s, the ratio to corobridge's own row of the same group,
 * wake-ups/op, B/op, CPU/op, busy threads, the load of the rest of the machine, then the issues'
 * goals as MET or MISSED. {@code --out FILE} (before the JMH options) also writes the tables to FILE.
 * {@code -Dfio.uring=IOPS} sets the fio io_uring reference for the read goal (default: the
 * earlier measurement, 525000).
 */
public final class SuiteRun {

    /** Per benchmark: the parameter that names the peer, and corobridge's own value of it. */
    private static final Map<String, String[]> PEER = Map.of(
            "TaskOverheadBenchmark", new String[] {"way", "task"},
            "RingFileReadBenchmark", new String[] {"impl", "ring1"},
            "WriteSyncBenchmark", new String[] {"impl", "ring"},
            "SyncReadWriteMutexBenchmark", new String[] {"impl", "javaFaceVirtualThreads"});

    private SuiteRun() {
    }

    public static void main(String[] args) throws Exception {
        Path out = null;
        Path csv = null;
        List<String> rest = new ArrayList<>(List.of(args));
        while (rest.size() >= 2 && (rest.get(0).equals("--out") || rest.get(0).equals("--csv"))) {
            if (rest.get(0).equals("--out")) {
                out = Path.of(rest.get(1));
            } else {
                csv = Path.of(rest.get(1));
            }
            rest = rest.subList(2, rest.size());
        }
        CommandLineOptions cli = new CommandLineOptions(rest.toArray(String[]::new));
        if (!List.copyOf(cli.getParameter("context").orElse(List.of("plain"))).equals(List.of("plain"))) {
            // Its goals compare the ways of one context; the study's rows have their own runner and table.
            throw new IllegalArgumentException("SuiteRun measures context=plain; for the context propagation study use "
                    + "ContextCostRun (benchmarks/run-context-cost)");
        }
        Path report = Files.createTempFile("suite-", ".txt");
        ChainedOptionsBuilder options = new OptionsBuilder().parent(cli);
        if (cli.getIncludes().isEmpty()) {
            options.include("(TaskOverhead|RingFileRead|WriteSync|SyncReadWriteMutex)Benchmark");
        }
        if (cli.getProfilers().isEmpty()) {
            options.addProfiler(GCProfiler.class);
        }
        List<String> append = new ArrayList<>(cli.getJvmArgsAppend().orElse(List.of()));
        append.add("-D" + Report.PROPERTY + "=" + report);
        options.jvmArgsAppend(append.toArray(String[]::new));

        PumpHopRun.awaitOtherJmhRuns();
        Collection<RunResult> results = new Runner(options.build()).run();
        Map<String, Map<String, String>> lines = readResults(report);
        Files.deleteIfExists(report);
        String text = summary(results, lines);
        System.out.print(text);
        if (out != null) {
            Files.writeString(out, text);
        }
        if (csv != null) {
            writeCsv(csv, results, lines);
        }
    }

    /** The results grouped by benchmark (simple name), in name order. */
    private static Map<String, List<RunResult>> byBenchmark(Collection<RunResult> results) {
        Map<String, List<RunResult>> byBench = new TreeMap<>();
        for (RunResult r : results) {
            byBench.computeIfAbsent(simpleName(r.getParams()), k -> new ArrayList<>()).add(r);
        }
        return byBench;
    }

    /** ops/s of corobridge's own row per group: {@code peer} is {parameter, value of ours}. */
    private static Map<String, Double> oursByGroup(List<RunResult> results, String[] peer) {
        Map<String, Double> ours = new HashMap<>();
        for (RunResult r : results) {
            if (peer[1].equals(r.getParams().getParam(peer[0]))) {
                ours.put(group(r.getParams(), peer[0]), opsPerSec(r));
            }
        }
        return ours;
    }

    /** One {@link Csv} row per result; x is the {@code n} parameter where there is one. */
    static void writeCsv(Path csv, Collection<RunResult> results, Map<String, Map<String, String>> lines) throws Exception {
        Map<String, List<RunResult>> byBench = byBenchmark(results);
        for (Map.Entry<String, List<RunResult>> e : byBench.entrySet()) {
            String bench = e.getKey();
            String[] peer = PEER.getOrDefault(bench, new String[] {"", ""});
            Map<String, Double> ours = oursByGroup(e.getValue(), peer);
            for (RunResult r : e.getValue()) {
                BenchmarkParams p = r.getParams();
                Map<String, String> l = lines.getOrDefault(bench + " " + paramsKey(p), Map.of());
                Double o = ours.get(group(p, peer[0]));
                double ops = opsPerSec(r);
                String n = p.getParam("n");
                Csv.append(csv, new Csv.Row(bench, group(p, peer[0]), p.getParam(peer[0]), peer[1], n == null ? "" : n, ops,
                        r.getPrimaryResult().getScoreError(), o == null ? Double.NaN : ops / o,
                        l.getOrDefault("wakeupsPerOp", "?"), bytesPerOp(r), l.getOrDefault("cpuNsPerOp", "?"),
                        l.getOrDefault("othersCpuPct", "?"), "", ""));
            }
        }
    }

    static String summary(Collection<RunResult> results, Map<String, Map<String, String>> lines) {
        Map<String, List<RunResult>> byBench = byBenchmark(results);
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, List<RunResult>> e : byBench.entrySet()) {
            String bench = e.getKey();
            String[] peer = PEER.getOrDefault(bench, new String[] {"", ""});
            Map<String, Double> ours = oursByGroup(e.getValue(), peer);
            out.append("\n## ").append(bench).append("\n\n");
            out.append("| ").append(String.join(", ", groupKeys(e.getValue().get(0).getParams(), peer[0])))
                    .append(" | ").append(peer[0]).append(" | ops/s | ± (99.9%) | × ").append(peer[1])
                    .append(" | ns/op | wake-ups/op | B/op | CPU ns/op | CPU cores | busy threads (≥ 10 % of a core) | threads that ran | others' CPU % |\n");
            out.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
            for (RunResult r : e.getValue()) {
                BenchmarkParams p = r.getParams();
                Map<String, String> l = lines.getOrDefault(bench + " " + paramsKey(p), Map.of());
                Double o = ours.get(group(p, peer[0]));
                double ops = opsPerSec(r);
                out.append(String.format(Locale.ROOT, "| %s | %s | %,.0f | %s | %s | %,.1f | %s | %s | %s | %s | %s | %s | %s |%n",
                        group(p, peer[0]), p.getParam(peer[0]), ops, error(r),
                        o == null ? "-" : String.format(Locale.ROOT, "%.2f", ops / o), 1e9 / ops,
                        l.getOrDefault("wakeupsPerOp", "?"), bytesPerOp(r), l.getOrDefault("cpuNsPerOp", "?"),
                        l.getOrDefault("cpuCores", "?"),
                        l.getOrDefault("busyThreads", "?") + " (" + l.getOrDefault("busyThreadNames", "?") + ")",
                        l.getOrDefault("threadsRan", "?"), l.getOrDefault("othersCpuPct", "?")));
            }
            out.append(goals(bench, e.getValue()));
        }
        return out.toString();
    }

    private static String goals(String bench, List<RunResult> rs) {
        StringBuilder g = new StringBuilder("\nGoals:\n");
        switch (bench) {
            case "TaskOverheadBenchmark" -> {
                for (String ex : List.of("single", "default")) {
                    for (String side : List.of("thread", "coroutine")) {
                        for (String way : List.of("task", "taskNoTrace")) {
                            RunResult t = find(rs, Map.of("executor", ex, "side", side, "way", way));
                            RunResult a = find(rs, Map.of("executor", ex, "side", side, "way", "async"));
                            RunResult c = find(rs, Map.of("executor", ex, "side", side, "way", "cf"));
                            if (t == null || a == null || c == null) {
                                continue;
                            }
                            double tn = 1e9 / opsPerSec(t);
                            double an = 1e9 / opsPerSec(a);
                            double cn = 1e9 / opsPerSec(c);
                            g.append(String.format(Locale.ROOT,
                                    "- %s/%s %s: %.0f ns = %.2f× async (%.0f ns) <= 1.3: %s; %.2f× cf (%.0f ns) <= 1.0: %s%n",
                                    ex, side, way, tn, tn / an, an, tn <= 1.3 * an ? "MET" : "MISSED", tn / cn, cn,
                                    tn <= cn ? "MET" : "MISSED"));
                        }
                    }
                }
            }
            case "RingFileReadBenchmark" -> {
                double fio = Double.parseDouble(System.getProperty("fio.uring", "525000"));
                RunResult r1 = find(rs, Map.of("impl", "ring1", "n", "64"));
                RunResult r2 = find(rs, Map.of("impl", "ring2", "n", "64"));
                RunResult io = find(rs, Map.of("impl", "io", "n", "64"));
                RunResult afc = find(rs, Map.of("impl", "afc", "n", "64"));
                if (r1 != null) {
                    double x = opsPerSec(r1) / fio;
                    g.append(String.format(Locale.ROOT, "- n=64 ring1 %.0f ops/s = %.2f of fio io_uring (%.0f) >= 0.70: %s%n",
                            opsPerSec(r1), x, fio, x >= 0.7 ? "MET" : "MISSED"));
                }
                if (r2 != null) {
                    double x = opsPerSec(r2) / 2 / fio;
                    g.append(String.format(Locale.ROOT, "- n=64 ring2 per ring %.0f ops/s = %.2f of fio io_uring >= 0.70: %s%n",
                            opsPerSec(r2) / 2, x, x >= 0.7 ? "MET" : "MISSED"));
                }
                for (RunResult r : new RunResult[] {r1, r2}) {
                    if (r != null && io != null) {
                        double x = opsPerSec(r) / opsPerSec(io);
                        g.append(String.format(Locale.ROOT, "- n=64 %s %.2f× Dispatchers.IO + FileChannel >= 1.0 (ring threads = %s <= cores): %s%n",
                                r.getParams().getParam("impl"), x, r.getParams().getParam("impl").substring(4),
                                x >= 1.0 ? "MET" : "MISSED"));
                    }
                    if (r != null && afc != null) {
                        double x = opsPerSec(r) / opsPerSec(afc);
                        g.append(String.format(Locale.ROOT, "- n=64 %s %.2f× AsynchronousFileChannel >= 2.0: %s%n",
                                r.getParams().getParam("impl"), x, x >= 2.0 ? "MET" : "MISSED"));
                    }
                }
            }
            case "WriteSyncBenchmark" -> {
                for (String impl : List.of("ring", "filechannel")) {
                    RunResult one = find(rs, Map.of("impl", impl, "mode", "one"));
                    RunResult grouped = find(rs, Map.of("impl", impl, "mode", "grouped"));
                    if (one != null && grouped != null) {
                        double x = opsPerSec(grouped) / opsPerSec(one);
                        g.append(String.format(Locale.ROOT, "- %s: grouped %.0f/s = %.2f× one at a time (%.0f/s)%s%n",
                                impl, opsPerSec(grouped), x, opsPerSec(one),
                                impl.equals("ring") ? " >= 4.0: " + (x >= 4.0 ? "MET" : "MISSED") : " (reference)"));
                    }
                }
            }
            case "SyncReadWriteMutexBenchmark" -> {
                for (String readers : List.of("1", "8", "64")) {
                    readWriteGoal(g, rs, readers, "javaFaceVirtualThreads", "rrwlVirtualThreads", 1.0);
                    readWriteGoal(g, rs, readers, "javaFaceVirtualThreads", "rrwlFairVirtualThreads", null); // a reference, no verdict
                    readWriteGoal(g, rs, readers, "kotlinFace", "kotlinxMutex", 1.3);
                }
            }
            default -> {
                return "";
            }
        }
        return g.toString();
    }

    /**
     * One read-write mutex goal: {@code ours} takes at most {@code limit} × the time of {@code peer};
     * with {@code limit} null, the ratio to a reference row (the peer in another mode), no verdict.
     */
    private static void readWriteGoal(StringBuilder g, List<RunResult> rs, String readers, String ours, String peer, Double limit) {
        RunResult o = find(rs, Map.of("impl", ours, "readersPerWriter", readers));
        RunResult p = find(rs, Map.of("impl", peer, "readersPerWriter", readers));
        if (o == null || p == null) {
            return;
        }
        double on = 1e9 / opsPerSec(o);
        double pn = 1e9 / opsPerSec(p);
        String verdict = limit == null ? "(reference)"
                : String.format(Locale.ROOT, "<= %.1f: %s", limit, on <= limit * pn ? "MET" : "MISSED");
        g.append(String.format(Locale.ROOT, "- readersPerWriter=%s %s: %.0f ns = %.2f× %s (%.0f ns) %s%n",
                readers, ours, on, on / pn, peer, pn, verdict));
    }

    private static RunResult find(List<RunResult> rs, Map<String, String> want) {
        for (RunResult r : rs) {
            boolean all = true;
            for (Map.Entry<String, String> w : want.entrySet()) {
                all &= w.getValue().equals(r.getParams().getParam(w.getKey()));
            }
            if (all) {
                return r;
            }
        }
        return null;
    }

    /** Operations per second, whether JMH measured throughput or time per operation. */
    static double opsPerSec(RunResult r) {
        Result<?> p = r.getPrimaryResult();
        String unit = p.getScoreUnit();
        double s = p.getScore();
        return switch (unit) {
            case "ops/s" -> s;
            case "ops/ms" -> s * 1e3;
            case "ns/op" -> 1e9 / s;
            case "us/op" -> 1e6 / s;
            default -> throw new IllegalStateException("unexpected unit " + unit);
        };
    }

    private static String error(RunResult r) {
        Result<?> p = r.getPrimaryResult();
        double err = p.getScoreError();
        if (Double.isNaN(err)) {
            return "-";
        }
        return String.format(Locale.ROOT, "%,.0f %s", err, p.getScoreUnit());
    }

    private static String simpleName(BenchmarkParams p) {
        String b = p.getBenchmark();
        String cls = b.substring(0, b.lastIndexOf('.'));
        return cls.substring(cls.lastIndexOf('.') + 1);
    }

    private static List<String> groupKeys(BenchmarkParams p, String peerKey) {
        List<String> keys = new ArrayList<>();
        for (String k : p.getParamsKeys()) {
            if (!k.equals(peerKey)) {
                keys.add(k);
            }
        }
        return keys;
    }

    private static String group(BenchmarkParams p, String peerKey) {
        List<String> parts = new ArrayList<>();
        for (String k : groupKeys(p, peerKey)) {
            parts.add(k + "=" + p.getParam(k));
        }
        return String.join(", ", parts);
    }

    private static String paramsKey(BenchmarkParams p) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String k : p.getParamsKeys()) {
            m.put(k, p.getParam(k));
        }
        return Report.paramsKey(m);
    }

    private static String bytesPerOp(RunResult r) {
        Result<?> b = r.getSecondaryResults().get("gc.alloc.rate.norm");
        return b == null ? "-" : String.format(Locale.ROOT, "%.0f", b.getScore());
    }

    /** RESULT lines by "bench params". */
    private static Map<String, Map<String, String>> readResults(Path file) throws Exception {
        Map<String, Map<String, String>> out = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.startsWith("RESULT ")) {
                continue;
            }
            Map<String, String> kv = new HashMap<>();
            for (String pair : line.substring("RESULT ".length()).trim().split("\\s+")) {
                int eq = pair.indexOf('=');
                kv.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            out.put(kv.get("bench") + " " + kv.get("params"), kv);
        }
        return out;
    }
}
