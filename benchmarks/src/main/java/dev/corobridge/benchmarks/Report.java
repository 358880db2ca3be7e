package dev.corobridge.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code RESULT} lines that the benchmarks other than PumpHopBenchmark print at the end of each
 * trial (measurement iterations only), e.g.
 * {@code RESULT bench=TaskOverheadBenchmark params=executor=single,side=thread,way=task ops=... wakeupsPerOp=...}.
 * Each is also appended to the file named by {@code -Dbench.report} (set by {@link SuiteRun}), which
 * reads them back to fill its table. Values must not contain spaces.
 */
final class Report {

    static final String PROPERTY = "bench.report";

    private Report() {
    }

    static void result(String bench, Map<String, String> params, Map<String, String> values) {
        StringBuilder line = new StringBuilder("RESULT bench=").append(bench).append(" params=").append(paramsKey(params));
        for (Map.Entry<String, String> e : values.entrySet()) {
            if (e.getValue().contains(" ")) {
                throw new IllegalArgumentException("value with a space: " + e);
            }
            line.append(' ').append(e.getKey()).append('=').append(e.getValue());
        }
        System.out.println(line);
        String file = System.getProperty(PROPERTY);
        if (file != null) {
            try {
                Files.writeString(Path.of(file), line + System.lineSeparator(), StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** {@code k=v,k=v} in key order: the same key for the fork's line and JMH's result. */
    static String paramsKey(Map<String, String> params) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(params).entrySet()) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.toString();
    }
}
