package dev.corobridge.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged web demo started as a separate JVM: a free loopback port, a data directory, its
 * output in a log file under {@code target/it-logs}; {@link #start} returns when readiness is UP.
 *
 * <p>Every JVM started here carries {@code -Dcorobridge.it.run=<id of this test JVM>}, so
 * {@link #leftovers()} finds any of them still alive, whoever started it, and a test can assert
 * that none is left.
 *
 * <p>System properties (set by the failsafe configuration): {@code it.demo.jar} (the executable jar),
 * {@code it.java} (the java launcher; default: the JVM running the tests, a JDK >= 21 found by the
 * build's toolchain), {@code it.logs}, {@code it.jvm.flags}.
 */
public final class DemoProcess implements AutoCloseable {

    /** Marks the service JVMs started by this test JVM. */
    public static final String RUN_ID = UUID.randomUUID().toString();
    private static final String MARKER = "-Dcorobridge.it.run=" + RUN_ID;

    /**
     * Passed as an extra "property" to {@link #start}: a quicker start for tests that restart the
     * service many times (C1 only: less compilation competing with the start on 2 cores).
     */
    public static final String QUICK_START = "@quick-start";

    private final String name;
    private final Path dataDir;
    private final Path log;
    private final int port;
    private final Process process;
    private final Http http;
    private final long startedNanos = System.nanoTime();

    private DemoProcess(String name, Path dataDir, Path log, int port, Process process) {
        this.name = name;
        this.dataDir = dataDir;
        this.log = log;
        this.port = port;
        this.process = process;
        this.http = new Http(baseUrl());
    }

    /** Starts the service on a free port with this data dir and waits until it is ready. */
    public static DemoProcess start(String name, Path dataDir, String... extraProperties) {
        DemoProcess p = launch(name, dataDir, extraProperties);
        p.awaitReady(Duration.ofSeconds(90));
        return p;
    }

    /**
     * Starts the service on this port (e.g. the port of a service that stopped, so that its clients
     * find it again) and waits until it is ready.
     */
    public static DemoProcess start(String name, Path dataDir, int port, String... extraProperties) {
        DemoProcess p = launch(name, dataDir, port, extraProperties);
        p.awaitReady(Duration.ofSeconds(90));
        return p;
    }

    /** Starts the service without waiting for readiness. */
    public static DemoProcess launch(String name, Path dataDir, String... extraProperties) {
        return launch(name, dataDir, freePort(), extraProperties);
    }

    /** Starts the service on this port without waiting for readiness. */
    public static DemoProcess launch(String name, Path dataDir, int port, String... extraProperties) {
        Command c = command(name, dataDir, port, extraProperties);
        try {
            ProcessBuilder pb = new ProcessBuilder(c.args())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(c.log().toFile()));
            pb.environment().remove("JAVA_TOOL_OPTIONS");
            return new DemoProcess(name, dataDir, c.log(), port, pb.start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + c.args(), e);
        }
    }

    /**
     * The command line that {@link #launch} runs, with the log file it writes to (its first line,
     * the command, already written): for a test that starts the service through a launcher of its own.
     */
    public record Command(List<String> args, Path log) {
    }

    /** The command that starts the service on this port (see {@link Command}); starts nothing. */
    public static Command command(String name, Path dataDir, int port, String... extraProperties) {
        Path jar = demoJar();
        try {
            Files.createDirectories(dataDir);
            Path logs = Path.of(System.getProperty("it.logs", "target/it-logs"));
            Files.createDirectories(logs);
            Path log = logs.resolve(name + ".log");
            List<String> cmd = new ArrayList<>();
            cmd.add(javaLauncher());
            cmd.addAll(Arrays.asList(System.getProperty("it.jvm.flags", "--enable-native-access=ALL-UNNAMED").trim().split("\\s+")));
            cmd.add("-Xmx512m");
            if (Arrays.asList(extraProperties).contains(QUICK_START)) {
                cmd.add("-XX:TieredStopAtLevel=1");
            }
            cmd.add(MARKER);
            cmd.add("-jar");
            cmd.add(jar.toString());
            cmd.add("--server.port=" + port);
            cmd.add("--server.address=127.0.0.1");
            cmd.add("--demo.data-dir=" + dataDir.toAbsolutePath());
            for (String p : extraProperties) {
                if (!p.equals(QUICK_START)) {
                    cmd.add("--" + p);
                }
            }
            Files.writeString(log, "# " + String.join(" ", cmd) + "\n", StandardCharsets.UTF_8);
            return new Command(List.copyOf(cmd), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the start of " + jar, e);
        }
    }

    public static Path demoJar() {
        String prop = System.getProperty("it.demo.jar");
        if (prop == null || prop.isBlank()) {
            throw new IllegalStateException("it.demo.jar is not set (the failsafe configuration sets it)");
        }
        Path jar = Path.of(prop);
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the web demo jar " + jar + " does not exist: build it first, e.g. "
                    + "./mvnw -pl integration-tests -am verify (never install)");
        }
        return jar;
    }

    /** The java launcher for the service: it.java, else the one running these tests. */
    public static String javaLauncher() {
        String prop = System.getProperty("it.java");
        if (prop != null && !prop.isBlank()) {
            return prop;
        }
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    public static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void awaitReady(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!Scenarios.ready(http)) {
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + " before it was ready; log "
                        + log + ":\n" + tail(60));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError(name + " not ready within " + timeout + "; log " + log + ":\n" + tail(60));
            }
            sleep(100);
        }
    }

    public String baseUrl() {
        return "http://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public Http http() {
        return http;
    }

    public Path dataDir() {
        return dataDir;
    }

    public Path journal() {
        return dataDir.resolve("journal.log");
    }

    public Path logFile() {
        return log;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Duration uptime() {
        return Duration.ofNanos(System.nanoTime() - startedNanos);
    }

    /** SIGKILL, then waits for the exit. */
    public void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(30));
    }

    /** SIGTERM (graceful shutdown); does not wait. */
    public void terminate() {
        process.destroy();
    }

    /** Waits for the exit; the exit code, or empty on timeout. */
    public Optional<Integer> waitFor(Duration timeout) {
        try {
            if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                return Optional.of(process.exitValue());
            }
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The whole log so far. */
    public String logText() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String tail(int lines) {
        List<String> all = logText().lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /** Every match of the pattern in the log. */
    public List<Matcher> grep(Pattern p) {
        List<Matcher> out = new ArrayList<>();
        for (String line : logText().lines().toList()) {
            Matcher m = p.matcher(line);
            if (m.find()) {
                out.add(m);
            }
        }
        return out;
    }

    /** Graceful stop (SIGTERM, then SIGKILL after 60 s); idempotent. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            if (waitFor(Duration.ofSeconds(60)).isEmpty()) {
                process.destroyForcibly();
                waitFor(Duration.ofSeconds(10));
            }
        }
    }

    /** Service JVMs started by this test JVM that are still alive. */
    public static List<ProcessHandle> leftovers() {
        return ProcessHandle.allProcesses()
                .filter(h -> h.info().arguments().map(a -> Arrays.asList(a).contains(MARKER)).orElse(false)
                        || h.info().commandLine().map(c -> c.contains(MARKER)).orElse(false))
                .toList();
    }

    /** Fails if any service JVM of this run is still alive (after a short grace period). */
    public static void assertNoLeftovers() {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        List<ProcessHandle> left = leftovers();
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            sleep(200);
            left = leftovers();
        }
        if (!left.isEmpty()) {
            left.forEach(ProcessHandle::destroyForcibly);
            throw new AssertionError("service processes left running (now killed): "
                    + left.stream().map(h -> h.pid() + " " + h.info().commandLine().orElse("?")).toList());
        }
    }

    public static Map<String, String> env() {
        return System.getenv();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
