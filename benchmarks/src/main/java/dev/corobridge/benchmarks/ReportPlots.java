package dev.corobridge.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Turns the rows that {@link PumpHopRun} and {@link SuiteRun} appended to a {@link Csv} file into
 * the report's overview table (printed as Markdown on stdout) and its PNG plots (JFreeChart,
 * headless):
 * <ul>
 *   <li>{@code pump-hop-throughput.png}: round trips/s against round trips in flight, per target;</li>
 *   <li>{@code pump-wakeups-per-dispatch.png}: real wake-ups per dispatch against round trips in
 *       flight (the pump's own count, and every target thread's sleeps), with the 1/16 goal;</li>
 *   <li>{@code pump-ns-per-dispatch.png}: ns per round trip against round trips in flight;</li>
 *   <li>{@code ring-read-vs-depth.png}: 4 KiB reads/s against reads in flight, per way of reading,
 *       with fio's figures from the same session when given.</li>
 * </ul>
 * Usage: {@code ReportPlots CSV OUTPUT_DIR [FIO_TSV]}, where FIO_TSV has lines
 * {@code engine jobs iodepth iops} (from {@code benchmarks/fio-reference --tsv}).
 */
public final class ReportPlots {

    private static final Color[] COLORS = {
        new Color(0xD6, 0x27, 0x28), new Color(0x1F, 0x77, 0xB4), new Color(0x2C, 0xA0, 0x2C),
        new Color(0x94, 0x67, 0xBD), new Color(0xFF, 0x7F, 0x0E), new Color(0x8C, 0x56, 0x4B),
        new Color(0xE3, 0x77, 0xC2), new Color(0x7F, 0x7F, 0x7F), new Color(0x17, 0xBE, 0xCF),
    };

    private ReportPlots() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        List<Csv.Row> rows = Csv.read(Path.of(args[0]));
        Path dir = Path.of(args[1]);
        Files.createDirectories(dir);
        List<String[]> fio = args.length > 2 && Files.exists(Path.of(args[2])) ? readFio(Path.of(args[2])) : List.of();
        if (rows.isEmpty()) {
            throw new IllegalStateException(args[0] + " holds no results: the benchmarks did not run");
        }
        System.out.print(overview(rows));
        List<String> pngs = new ArrayList<>();
        pngs.addAll(pumpHop(rows, dir));
        pngs.addAll(ringRead(rows, fio, dir));
        if (!pngs.isEmpty()) {
            System.out.println();
            System.out.println("## Plots");
            System.out.println();
        }
        for (String png : pngs) {
            System.out.println("![" + png + "](" + png + ")");
            System.out.println();
        }
    }

    /** One table for everything: benchmark, peer, ops/s, ratio to ours, wake-ups, B/op, CPU. */
    static String overview(List<Csv.Row> rows) {
        StringBuilder out = new StringBuilder("\n## Overview (every result of this run)\n\n");
        out.append(machineLoad(rows)).append("\n\n");
        out.append("Ratio = ops/s over corobridge's own row (`ours`) of the same benchmark and group. Wake-ups/op = real sleeps "
                + "(voluntary context switches) of the threads that matter, per operation; for PumpHop the target thread's. "
                + "CPU ns/op = the benchmark process's CPU time per operation.\n\n");
        out.append("| benchmark | group | peer | ops/s | ratio to ours | wake-ups/op | B/op | CPU ns/op | others' CPU % |\n");
        out.append("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
        for (Csv.Row r : rows) {
            out.append(String.format(Locale.ROOT, "| %s | %s | %s%s | %,.0f | %s | %s | %s | %s | %s |%n",
                    r.bench().replace("Benchmark", ""), r.group(), r.peer(), r.peer().equals(r.ours()) ? " (ours)" : "",
                    r.opsPerSec(), Double.isNaN(r.ratio()) ? "-" : String.format(Locale.ROOT, "%.2f", r.ratio()),
                    r.wakeupsPerOp(), r.bytesPerOp(), r.cpuNsPerOp(), r.othersCpu()));
        }
        return out.toString();
    }

    /** Above this share of a core used by the rest of the machine in any row, the run was shared (see the README's columns). */
    private static final double QUIET_OTHERS_CPU_PCT = 50;

    /**
     * How busy the rest of the machine was while the rows ran, from their others' CPU: the lowest,
     * the median and the highest, and whether that makes the run quiet or shared.
     */
    static String machineLoad(List<Csv.Row> rows) {
        double[] others = rows.stream().mapToDouble(r -> number(r.othersCpu())).filter(v -> v >= 0).sorted().toArray();
        if (others.length == 0) {
            return "**How busy the machine was is unknown** (no row measured the rest of it): read the ratios between "
                    + "peers of the same run, not the absolute figures.";
        }
        double high = others[others.length - 1];
        String range = String.format(Locale.ROOT, "the rest of it used %.0f–%.0f %% of one core per row (median %.0f %%; "
                + "the \"others' CPU\" column)", others[0], high, others[(others.length - 1) / 2]);
        return high < QUIET_OTHERS_CPU_PCT
                ? "**A quiet machine**: " + range + ". The ratios between peers of the same run are still the figures to compare."
                : "**The machine was shared**: " + range + ". Above ~50 % the absolute figures mean little: read the "
                        + "ratios between peers of the same run.";
    }

    private static List<String> pumpHop(List<Csv.Row> rows, Path dir) throws IOException {
        Map<String, XYSeries> ops = new LinkedHashMap<>();
        Map<String, XYSeries> ns = new LinkedHashMap<>();
        Map<String, XYSeries> wake = new LinkedHashMap<>();
        XYSeries pumpOwn = new XYSeries("pump (its own count of unparks)");
        double minX = Double.MAX_VALUE;
        double maxX = 0;
        for (Csv.Row r : rows) {
            if (!r.bench().equals("PumpHopBenchmark") || r.x().isEmpty()) {
                continue;
            }
            double x = Double.parseDouble(r.x());
            minX = Math.min(minX, x);
            maxX = Math.max(maxX, x);
            ops.computeIfAbsent(r.peer(), XYSeries::new).add(x, r.opsPerSec());
            ns.computeIfAbsent(r.peer(), XYSeries::new).add(x, 1e9 / r.opsPerSec());
            double w = number(r.wakeupsPerOp());
            if (w > 0 && !r.peer().equals("pump")) { // the pump's own count below is the same within 1 %
                wake.computeIfAbsent(r.peer() + " (thread sleeps)", XYSeries::new).add(x, w);
            }
            double own = number(r.extra1());
            if (own > 0) {
                pumpOwn.add(x, own);
            }
        }
        if (ops.isEmpty()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        out.add(save(dir, "pump-hop-throughput.png", chart("PumpHop: round trips/s vs round trips in flight (higher is better)",
                "round trips in flight (N coroutines on Dispatchers.Default)", "round trips/s", ops.values(), null)));
        out.add(save(dir, "pump-ns-per-dispatch.png", chart("PumpHop: ns per round trip vs round trips in flight (lower is better)",
                "round trips in flight", "ns per round trip (1e9 / ops/s)", ns.values(), null)));
        List<XYSeries> w = new ArrayList<>();
        if (pumpOwn.getItemCount() > 0) {
            w.add(pumpOwn);
        }
        w.addAll(wake.values());
        XYSeries goal = new XYSeries("goal at 64 in flight: 1/16");
        goal.add(minX, 1.0 / 16);
        goal.add(maxX, 1.0 / 16);
        out.add(save(dir, "pump-wakeups-per-dispatch.png", chart("Wake-ups per dispatch vs round trips in flight (lower is better)",
                "round trips in flight", "wake-ups per dispatch (log)", w, goal, 2)));
        return out;
    }

    private static List<String> ringRead(List<Csv.Row> rows, List<String[]> fio, Path dir) throws IOException {
        Map<String, XYSeries> ops = new LinkedHashMap<>();
        for (Csv.Row r : rows) {
            if (r.bench().equals("RingFileReadBenchmark") && !r.x().isEmpty()) {
                ops.computeIfAbsent(r.peer(), XYSeries::new).add(Double.parseDouble(r.x()), r.opsPerSec());
            }
        }
        if (ops.isEmpty()) {
            return List.of();
        }
        List<XYSeries> series = new ArrayList<>(ops.values());
        XYSeries uring = new XYSeries("fio io_uring, 1 job (x = iodepth)");
        XYSeries psync = new XYSeries("fio psync (x = jobs)");
        for (String[] f : fio) {
            if (f[0].equals("io_uring")) {
                uring.add(Double.parseDouble(f[2]), Double.parseDouble(f[3]));
            } else if (f[0].equals("psync")) {
                psync.add(Double.parseDouble(f[1]), Double.parseDouble(f[3]));
            }
        }
        for (XYSeries s : new XYSeries[] {uring, psync}) {
            if (s.getItemCount() > 0) {
                series.add(s);
            }
        }
        return List.of(save(dir, "ring-read-vs-depth.png", chart("4 KiB random reads (page cache): reads/s vs reads in flight",
                "reads in flight (readers)", "reads/s (log)", series, null)));
    }

    private static JFreeChart chart(String title, String xLabel, String yLabel, Iterable<XYSeries> series, XYSeries dashed) {
        return chart(title, xLabel, yLabel, series, dashed, 10);
    }

    /**
     * Both axes logarithmic. With {@code yBase} 10: a label per decade and minor grid lines at 2..9
     * times it; with 2: a label per power of two.
     */
    private static JFreeChart chart(String title, String xLabel, String yLabel, Iterable<XYSeries> series, XYSeries dashed,
                                    int yBase) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (XYSeries s : series) {
            data.addSeries(s);
        }
        if (dashed != null) {
            data.addSeries(dashed);
        }
        LogAxis x = new LogAxis(xLabel);
        x.setBase(2);
        x.setTickUnit(new NumberTickUnit(1));
        x.setNumberFormatOverride(new DecimalFormat("0"));
        x.setSmallestValue(0.5);
        LogAxis y = yBase == 10 ? new OneTwoFiveAxis(yLabel) : new LogAxis(yLabel);
        y.setBase(yBase);
        y.setTickUnit(new NumberTickUnit(1));
        y.setNumberFormatOverride(new DecimalFormat("#,##0.#####"));
        y.setSmallestValue(1e-5);
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        for (int i = 0; i < data.getSeriesCount(); i++) {
            renderer.setSeriesPaint(i, COLORS[i % COLORS.length]);
            boolean isFio = data.getSeriesKey(i).toString().startsWith("fio");
            boolean isDashed = dashed != null && i == data.getSeriesCount() - 1;
            renderer.setSeriesStroke(i, isDashed || isFio
                    ? new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f, new float[] {6f, 4f}, 0f)
                    : new BasicStroke(i == 0 ? 3f : 2f));
            if (isDashed) {
                renderer.setSeriesShapesVisible(i, false);
                renderer.setSeriesPaint(i, Color.BLACK);
            }
        }
        XYPlot plot = new XYPlot(data, x, y, renderer);
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.GRAY);
        JFreeChart chart = new JFreeChart(title, new Font("SansSerif", Font.BOLD, 15), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    /** A vertical base-10 log axis labelled at 1, 2 and 5 times each power of ten. */
    private static final class OneTwoFiveAxis extends LogAxis {
        private static final long serialVersionUID = 1L;
        private final DecimalFormat format = new DecimalFormat("#,##0.#####");

        OneTwoFiveAxis(String label) {
            super(label);
        }

        @Override
        @SuppressWarnings("rawtypes")
        public List refreshTicks(java.awt.Graphics2D g2, org.jfree.chart.axis.AxisState state,
                                 java.awt.geom.Rectangle2D dataArea, org.jfree.chart.ui.RectangleEdge edge) {
            List<org.jfree.chart.axis.ValueTick> ticks = new ArrayList<>();
            double lo = getLowerBound();
            double hi = getUpperBound();
            for (double d = Math.pow(10, Math.floor(Math.log10(lo))); d <= hi; d *= 10) {
                for (int m : new int[] {1, 2, 5}) {
                    double v = m * d;
                    if (v >= lo && v <= hi) {
                        ticks.add(new org.jfree.chart.axis.NumberTick(org.jfree.chart.axis.TickType.MAJOR, v, format.format(v),
                                org.jfree.chart.ui.TextAnchor.CENTER_RIGHT, org.jfree.chart.ui.TextAnchor.CENTER_RIGHT, 0.0));
                    }
                }
            }
            return ticks;
        }
    }

    private static String save(Path dir, String name, JFreeChart chart) throws IOException {
        ChartUtils.saveChartAsPNG(dir.resolve(name).toFile(), chart, 1000, 600);
        return name;
    }

    private static double number(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static List<String[]> readFio(Path file) throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 4 && !line.startsWith("#")) {
                out.add(f);
            }
        }
        return out;
    }
}
