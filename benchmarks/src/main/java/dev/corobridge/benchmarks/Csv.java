package dev.corobridge.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The machine-readable side of the report: one row per benchmark result, appended by
 * {@link PumpHopRun} and {@link SuiteRun} to the file {@code benchmarks/run} passes them, and read
 * by {@link ReportPlots} for the overview table and the plots. Fields never contain commas.
 */
final class Csv {

    static final String HEADER = "bench,group,peer,ours,x,opsPerSec,error,ratio,wakeupsPerOp,bytesPerOp,cpuNsPerOp,othersCpuPct,extra1,extra2";

    /**
     * @param bench        the benchmark's simple class name
     * @param group        the parameters other than the peer ({@code n=64}, ...)
     * @param peer         the value of the parameter that names the implementation
     * @param ours         corobridge's own peer value in this benchmark (the ratio's denominator)
     * @param x            the concurrency (round trips or reads in flight) for plots, or "" if none
     * @param opsPerSec    throughput
     * @param error        99.9 % error of the primary result, in its unit
     * @param ratio        ops/s over ours in the same group
     * @param wakeupsPerOp real sleeps (voluntary context switches) per op of the threads that matter
     * @param bytesPerOp   {@code gc.alloc.rate.norm}
     * @param cpuNsPerOp   process CPU per op
     * @param othersCpu    CPU the rest of the machine used, % of a core
     * @param extra1       PumpHop: the pump's own wake-ups per dispatch; else ""
     * @param extra2       PumpHop: caller sleeps per op; else ""
     */
    record Row(String bench, String group, String peer, String ours, String x, double opsPerSec, double error,
               double ratio, String wakeupsPerOp, String bytesPerOp, String cpuNsPerOp, String othersCpu,
               String extra1, String extra2) {

        String line() {
            return String.join(",", bench, group.replace(",", ";"), peer, ours, x,
                    String.format(Locale.ROOT, "%.1f", opsPerSec), String.format(Locale.ROOT, "%.1f", error),
                    Double.isNaN(ratio) ? "" : String.format(Locale.ROOT, "%.3f", ratio), wakeupsPerOp, bytesPerOp,
                    cpuNsPerOp, othersCpu, extra1, extra2);
        }

        static Row parse(String line) {
            String[] f = line.split(",", -1);
            return new Row(f[0], f[1], f[2], f[3], f[4], Double.parseDouble(f[5]), Double.parseDouble(f[6]),
                    f[7].isEmpty() ? Double.NaN : Double.parseDouble(f[7]), f[8], f[9], f[10], f[11], f[12], f[13]);
        }
    }

    private Csv() {
    }

    static synchronized void append(Path file, Row row) throws IOException {
        if (!Files.exists(file) || Files.size(file) == 0) {
            Files.writeString(file, HEADER + System.lineSeparator(), StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        Files.writeString(file, row.line() + System.lineSeparator(), StandardOpenOption.APPEND);
    }

    static List<Row> read(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank() && !line.equals(HEADER)) {
                rows.add(Row.parse(line));
            }
        }
        return rows;
    }
}
