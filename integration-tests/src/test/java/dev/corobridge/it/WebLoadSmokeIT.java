package dev.corobridge.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * The load script {@code benchmarks/web-load} in its smoke mode (1 s wrk runs, one warm-up round),
 * so that the script cannot rot between the rare full runs: it must exit 0 and write its whole
 * report, both tables included. Its figures are not checked; on a shared machine they mean nothing.
 *
 * <p>The script needs wrk, curl and jq. Where one is missing the test is skipped with a message;
 * with {@code COROBRIDGE_REQUIRE_WRK=true} (set by {@code .ci/run}, which installs them) or
 * {@code -Dit.wrk.require=true} a missing tool fails it instead.
 */
class WebLoadSmokeIT {

    private static final List<String> TOOLS = List.of("wrk", "curl", "jq");

    @Test
    void theLoadScriptRunsAndWritesItsReport() throws Exception {
        Path root = Path.of(System.getProperty("it.repo.root", "..")).toAbsolutePath().normalize();
        boolean require = Boolean.parseBoolean(System.getenv("COROBRIDGE_REQUIRE_WRK"))
                || Boolean.getBoolean("it.wrk.require");
        List<String> missing = TOOLS.stream().filter(t -> !onPath(t)).toList();
        if (!require && !missing.isEmpty()) {
            abort("SKIPPED: benchmarks/web-load needs " + missing + " (apt-get install wrk curl jq; CI installs them)");
        }
        assertThat(missing).as("tools benchmarks/web-load needs").isEmpty();
        String jar = System.getProperty("it.demo.jar");
        assertThat(jar).as("it.demo.jar (set by the failsafe configuration)").isNotBlank();

        Path logs = Path.of(System.getProperty("it.logs", "target/it-logs")).toAbsolutePath();
        Files.createDirectories(logs);
        Path report = logs.resolve("web-load-smoke.md");
        Files.deleteIfExists(report);
        Path log = logs.resolve("web-load-smoke.log");
        Process p = new ProcessBuilder("bash", root.resolve("benchmarks/web-load").toString(),
                "--smoke", "--jar", jar, "--out", report.toString())
                .directory(root.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        // The service's start dominates: up to 3 minutes on a busy 2-CPU machine, 20 s when quiet.
        boolean done = p.waitFor(6, TimeUnit.MINUTES);
        if (!done) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            p.waitFor(60, TimeUnit.SECONDS);
        }
        String out = Files.readString(log);
        String tail = out.length() > 6000 ? out.substring(out.length() - 6000) : out;
        assertThat(done).as("web-load --smoke did not finish in 6 minutes; its log:%n%s", tail).isTrue();
        assertThat(p.exitValue()).as("web-load --smoke failed; its log (%s):%n%s", log, tail).isZero();
        assertThat(report).as("the report; the script's log:%n%s", tail).exists();
        String table = Files.readString(report);
        assertThat(table)
                .startsWith("# Web demo under load")
                .contains("| run | face | endpoint |", "| goal | measured | verdict |")
                .contains("| ping | Java |", "| snapshot kt | Kotlin |", "| add-note kt c64 | Kotlin |")
                .contains("fsyncs per note at 64 connections (Kotlin)")
                .contains("| service wake-ups per request |")
                .containsPattern("one costs [0-9]+\\.[0-9] µs of CPU on this machine")
                .doesNotContain("The run FAILED");
    }

    private static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}
