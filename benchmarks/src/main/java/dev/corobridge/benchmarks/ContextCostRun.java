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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The context propagation cost study: what carrying a request's context — two MDC
 * entries and a tracing context ({@link RequestContext}) — with hop tracing on costs per hop,
 * against tracing and propagation off, in one run. Runs {@link PumpHopBenchmark} and then
 * {@link TaskOverheadBenchmark} over the {@link ContextCase} rows (with {@code -prof gc} unless
 * other profilers are given) and prints one Markdown table: per benchmark and group, each row's
 * ns/op, B/op and CPU ns/op, and its ratio to the {@code off} row of the same group; then the goals.
 *
 * <pre>
 * ContextCostRun [--out FILE] [--pump-hop-only | --task-only] [JMH options]
 * </pre>
 * Defaults: PumpHop {@code -p target=pump -p n=1,64 -p context=bare,off,empty,tracing,on};
 * TaskOverhead {@code -p way=task -p context=off,empty,tracing,on} on both executors and both sides.
 * A {@code -p} on the command line replaces the default of that parameter ({@code context=bare} is
 * PumpHop's only and is left out of TaskOverhead's rows); the other JMH options ({@code -f},
 * {@code -wi}, {@code -i}, ...) apply to both benchmarks. A failing row (JMH's fail-on-error is on:
 * a row whose hops did not carry the context, or saw one nobody set, throws) stops the run with
 * an exception; an empty table exits with status 1.
 *
 * <p>Goals: {@code on} ≤ 1.15× {@code off} in ns/op in every group (MET or MISSED only when both
 * rows' 99.9 % error intervals say so, else "not shown" with the range they allow); and "off costs nothing
 * measurable": PumpHop's {@code off} against {@code bare} (the same loop without tasks), and
 * {@code empty} (propagation on, nothing to carry) against {@code off}, are judged "not measurable"
 * when their 99.9 % error intervals overlap.
 */
public final class ContextCostRun {

    private static final String PUMP_HOP = "PumpHopBenchmark";
    private static final String TASK = "TaskOverheadBenchmark";
    private static final List<String> PUMP_HOP_CONTEXTS = List.of("bare", "off", "empty", "tracing", "on");
    private static final List<String> TASK_CONTEXTS = List.of("off", "empty", "tracing", "on");
    /** Parameters that are the study's row, not its group. */
    private static final String CONTEXT = "context";
    private static final double GOAL = 1.15;

    private ContextCostRun() {
    }

    public static void main(String[] args) throws Exception {
        Path out = null;
        boolean pumpHop = true;
        boolean task = true;
        List<String> rest = new ArrayList<>(List.of(args));
        while (!rest.isEmpty() && rest.get(0).startsWith("--")) {
            switch (rest.get(0)) {
                case "--out" -> {
                    if (rest.size() < 2) {
                        throw new IllegalArgumentException("--out needs a file");
                    }
                    out = Path.of(rest.get(1));
                    rest = rest.subList(2, rest.size());
                }
                case "--pump-hop-only" -> {
                    task = false;
                    rest = rest.subList(1, rest.size());
                }
                case "--task-only" -> {
                    pumpHop = false;
                    rest = rest.subList(1, rest.size());
                }
                default -> throw new IllegalArgumentException("unknown option " + rest.get(0)
                        + " (ContextCostRun [--out FILE] [--pump-hop-only | --task-only] [JMH options])");
            }
        }
        CommandLineOptions cli = new CommandLineOptions(rest.toArray(String[]::new));
        if (!cli.getIncludes().isEmpty()) {
            throw new IllegalArgumentException("ContextCostRun picks its benchmarks itself; select rows with -p instead of "
                    + cli.getIncludes());
        }
        Path report = Files.createTempFile("context-cost-", ".txt");
        List<RunResult> results = new ArrayList<>();
        PumpHopRun.awaitOtherJmhRuns();
        if (pumpHop) {
            ChainedOptionsBuilder o = base(cli, report).include(PumpHopBenchmark.class.getName() + "\\.roundTrip$");
            param(o, cli, "target", List.of("pump"));
            param(o, cli, "n", List.of("1", "64"));
            param(o, cli, CONTEXT, PUMP_HOP_CONTEXTS);
            results.addAll(new Runner(o.build()).run());
        }
        if (task) {
            ChainedOptionsBuilder o = base(cli, report).include(TaskOverheadBenchmark.class.getName() + "\\.startAwait$");
            param(o, cli, "way", List.of("task"));
            List<String> contexts = new ArrayList<>(cli.getParameter(CONTEXT).hasValue()
                    ? cli.getParameter(CONTEXT).get() : TASK_CONTEXTS);
            contexts.remove("bare");
            if (!contexts.isEmpty()) {
                o.param(CONTEXT, contexts.toArray(String[]::new));
                results.addAll(new Runner(o.build()).run());
            }
        }
        Map<String, Map<String, String>> lines = readLines(report);
        Files.deleteIfExists(report);
        StringBuilder text = new StringBuilder();
        boolean complete = table(text, results, lines);
        System.out.print(text);
        if (out != null) {
            Files.writeString(out, text);
        }
        if (!complete) {
            System.exit(1);
        }
    }

    /** The command line's options, {@code -prof gc} unless it names profilers, and the report file for both benchmarks. */
    private static ChainedOptionsBuilder base(CommandLineOptions cli, Path report) {
        // A row whose check failed (the context did not travel, or leaked) stops the study.
        ChainedOptionsBuilder o = new OptionsBuilder().parent(cli).shouldFailOnError(true);
        if (cli.getProfilers().isEmpty()) {
            o.addProfiler(GCProfiler.class);
        }
        // Our own jvmArgsAppend would replace the command line's: keep both.
        List<String> append = new ArrayList<>(cli.getJvmArgsAppend().orElse(List.of()));
        append.add("-D" + PumpHopBenchmark.REPORT_PROPERTY + "=" + report);
        append.add("-D" + Report.PROPERTY + "=" + report);
        o.jvmArgsAppend(append.toArray(String[]::new));
        return o;
    }

    /** The command line's values of {@code name}, else {@code defaults}. */
    private static void param(ChainedOptionsBuilder o, CommandLineOptions cli, String name, List<String> defaults) {
        Collection<String> values = cli.getParameter(name).hasValue() ? cli.getParameter(name).get() : defaults;
        o.param(name, values.toArray(String[]::new));
    }

    /** One study row: a result and the figures its fork printed. */
    private record Row(String bench, String group, String context, RunResult result, Map<String, String> line) {

        double nsPerOp() {
            return 1e9 / SuiteRun.opsPerSec(result);
        }

        /** The 99.9 % error of {@link #nsPerOp()} (NaN with fewer than two iterations). */
        double nsError() {
            Result<?> p = result.getPrimaryResult();
            return nsPerOp() * p.getScoreError() / p.getScore();
        }

        double bytesPerOp() {
            Result<?> b = result.getSecondaryResults().get("gc.alloc.rate.norm");
            return b == null ? Double.NaN : b.getScore();
        }

        double cpuNsPerOp() {
            String v = line.get("cpuNsPerOp");
            return v == null ? Double.NaN : Double.parseDouble(v);
        }
    }

    /** Appends the table and the goals; returns false when nothing was measured. */
    static boolean table(StringBuilder out, Collection<RunResult> results, Map<String, Map<String, String>> lines) {
        Map<String, Map<String, Row>> groups = new LinkedHashMap<>(); // "bench group" -> context -> row
        for (RunResult r : results) {
            BenchmarkParams p = r.getParams();
            String bench = simpleName(p);
            String group = group(bench, p);
            String context = p.getParam(CONTEXT);
            Map<String, String> line = lines.getOrDefault(lineKey(bench, p), Map.of());
            groups.computeIfAbsent(bench + " | " + group, k -> new LinkedHashMap<>())
                    .put(context, new Row(bench, group, context, r, line));
        }
        out.append("\n## Context propagation cost\n\n");
        out.append("One op: PumpHop = one round trip (two dispatches: Default → target → Default); TaskOverhead = one "
                + "Task.start + await. × off = ns/op over the off row of the same group. CPU ns/op = process CPU per op. "
                + "Hops checked = hops on the target that saw the request context (carried) or none (bare).\n\n");
        out.append("| benchmark | group | context | ns/op | ± (99.9%) | × off | B/op | B/op − off | CPU ns/op | CPU × off "
                + "| wake-ups/op | others' CPU % | hops checked: carried / bare |\n");
        out.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        boolean complete = !groups.isEmpty();
        StringBuilder goals = new StringBuilder("\nGoals:\n");
        for (Map<String, Row> g : groups.values()) {
            Row any = g.values().iterator().next();
            List<String> expected = any.bench().equals(PUMP_HOP) ? PUMP_HOP_CONTEXTS : TASK_CONTEXTS;
            Row off = g.get("off");
            for (Row r : g.values()) {
                out.append(String.format(Locale.ROOT, "| %s | %s | %s | %,.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        r.bench().replace("Benchmark", ""), r.group(), r.context(), r.nsPerOp(), num(r.nsError(), 1),
                        off == null ? "-" : num(r.nsPerOp() / off.nsPerOp(), 3), num(r.bytesPerOp(), 0),
                        off == null ? "-" : signed(r.bytesPerOp() - off.bytesPerOp()), num(r.cpuNsPerOp(), 0),
                        off == null ? "-" : num(r.cpuNsPerOp() / off.cpuNsPerOp(), 3), wakeups(r),
                        r.line().getOrDefault("othersCpuPct", "?"),
                        r.line().getOrDefault("carriedHops", "?") + " / " + r.line().getOrDefault("bareHops", "?")));
            }
            for (String c : expected) {
                if (!g.containsKey(c)) {
                    out.append(String.format(Locale.ROOT, "| %s | %s | %s | not selected |%n",
                            any.bench().replace("Benchmark", ""), any.group(), c));
                }
            }
            String where = any.bench().replace("Benchmark", "") + " " + any.group();
            Row on = g.get("on");
            if (on != null && off != null) {
                double x = on.nsPerOp() / off.nsPerOp();
                goals.append(String.format(Locale.ROOT,
                        "- %s: on %.0f ns = %.3f× off (%.0f ns) <= %.2f: %s (CPU %.3f×, %s B/op)%n", where, on.nsPerOp(), x,
                        off.nsPerOp(), GOAL, ratioVerdict(on, off), on.cpuNsPerOp() / off.cpuNsPerOp(),
                        signed(on.bytesPerOp() - off.bytesPerOp())));
            }
            nothing(goals, where, "off vs bare (tasks with everything off vs no tasks)", off, g.get("bare"));
            nothing(goals, where, "empty vs off (propagation on, nothing to carry)", g.get("empty"), off);
        }
        out.append(goals);
        return complete;
    }

    /**
     * The verdict on {@code on ≤ GOAL × off}, from both rows' 99.9 % error intervals: MET only if
     * the largest ratio they allow is within the goal, MISSED only if the smallest is above it;
     * otherwise the run cannot tell (a single fork on a noisy machine often cannot), and it says so
     * with the range instead of judging the means.
     */
    private static String ratioVerdict(Row on, Row off) {
        double eOn = on.nsError();
        double eOff = off.nsError();
        if (Double.isNaN(eOn) || Double.isNaN(eOff)) {
            return (on.nsPerOp() / off.nsPerOp() <= GOAL ? "MET" : "MISSED") + " (no error bars: needs >= 2 measurement iterations)";
        }
        double low = Math.max(0, on.nsPerOp() - eOn) / (off.nsPerOp() + eOff);
        double high = off.nsPerOp() - eOff <= 0 ? Double.POSITIVE_INFINITY : (on.nsPerOp() + eOn) / (off.nsPerOp() - eOff);
        if (high <= GOAL) {
            return "MET";
        }
        if (low > GOAL) {
            return "MISSED";
        }
        return String.format(Locale.ROOT, "not shown (the errors allow %.2f× to %s)", low,
                Double.isInfinite(high) ? "any ratio" : String.format(Locale.ROOT, "%.2f×", high));
    }

    /** "Costs nothing measurable": the two rows' 99.9 % error intervals overlap. */
    private static void nothing(StringBuilder goals, String where, String what, Row row, Row floor) {
        if (row == null || floor == null) {
            return;
        }
        double d = row.nsPerOp() - floor.nsPerOp();
        double e = row.nsError() + floor.nsError();
        String verdict = Double.isNaN(e) ? "n/a (needs >= 2 measurement iterations for error bars)"
                : Math.abs(d) <= e ? "not measurable (MET)" : d > 0 ? "MEASURABLE (MISSED)" : "faster (MET)";
        goals.append(String.format(Locale.ROOT, "- %s: %s: %.3f× (%+.0f ns/op, errors ±%s), %s B/op: %s%n", where, what,
                row.nsPerOp() / floor.nsPerOp(), d, num(e, 0), signed(row.bytesPerOp() - floor.bytesPerOp()), verdict));
    }

    private static String wakeups(Row r) {
        return r.bench().equals(PUMP_HOP) ? r.line().getOrDefault("targetSleepsPerOp", "?")
                : r.line().getOrDefault("wakeupsPerOp", "?");
    }

    private static String num(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%,." + decimals + "f", v);
    }

    private static String signed(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%+.0f", v);
    }

    private static String simpleName(BenchmarkParams p) {
        String b = p.getBenchmark();
        String cls = b.substring(0, b.lastIndexOf('.'));
        return cls.substring(cls.lastIndexOf('.') + 1);
    }

    /** The parameters other than context, {@code k=v} joined by spaces. */
    private static String group(String bench, BenchmarkParams p) {
        List<String> parts = new ArrayList<>();
        for (String k : p.getParamsKeys()) {
            if (!k.equals(CONTEXT) && !(bench.equals(TASK) && k.equals("way"))) {
                parts.add(k + "=" + p.getParam(k));
            }
        }
        return String.join(" ", parts);
    }

    /** The key its fork's line has: PumpHop's HOP line by target/n/context, the others' RESULT line by params. */
    private static String lineKey(String bench, BenchmarkParams p) {
        if (bench.equals(PUMP_HOP)) {
            return PUMP_HOP + " " + p.getParam("target") + "/" + p.getParam("n") + "/" + p.getParam(CONTEXT);
        }
        Map<String, String> m = new HashMap<>();
        for (String k : p.getParamsKeys()) {
            m.put(k, p.getParam(k));
        }
        return bench + " " + Report.paramsKey(m);
    }

    /** HOP and RESULT lines by {@link #lineKey}. */
    private static Map<String, Map<String, String>> readLines(Path file) throws Exception {
        Map<String, Map<String, String>> out = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            String body;
            if (line.startsWith("HOP ")) {
                body = line.substring("HOP ".length());
            } else if (line.startsWith("RESULT ")) {
                body = line.substring("RESULT ".length());
            } else {
                continue;
            }
            Map<String, String> kv = new HashMap<>();
            for (String pair : body.trim().split("\\s+")) {
                int eq = pair.indexOf('=');
                kv.put(pair.substring(0, eq), pair.substring(eq + 1));
            }
            String key = line.startsWith("HOP ")
                    ? PUMP_HOP + " " + kv.get("target") + "/" + kv.get("n") + "/" + kv.get(CONTEXT)
                    : kv.get("bench") + " " + kv.get("params");
            out.put(key, kv);
        }
        return out;
    }
}
