package dev.corobridge.kafkabroker;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * One Kafka broker (KRaft, broker and controller in one process) as a child JVM: its directory
 * ({@code server.properties}, {@code data/}, {@code broker.log}, which collects the output of every
 * JVM started for it), its ports, and the process of its current run.
 *
 * <p>Not thread-safe: {@link KafkaCluster} calls it under its own lock; {@link #killNow} alone may
 * run on any thread (the shutdown hook).
 */
final class BrokerProcess {

    private final int nodeId;
    private final Path dir;
    private final BrokerPorts ports;
    private final BrokerRuntime runtime;
    private final List<String> jvmOptions;
    private volatile Process process;

    BrokerProcess(int nodeId, Path dir, BrokerPorts ports, BrokerRuntime runtime, List<String> jvmOptions) {
        this.nodeId = nodeId;
        this.dir = dir;
        this.ports = ports;
        this.runtime = runtime;
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    int nodeId() {
        return nodeId;
    }

    BrokerPorts ports() {
        return ports;
    }

    Path dir() {
        return dir;
    }

    Path log() {
        return dir.resolve("broker.log");
    }

    Path dataDir() {
        return dir.resolve("data");
    }

    String address() {
        return "127.0.0.1:" + ports.broker();
    }

    /** Writes the broker's server.properties (before its first launch). */
    void configure(Properties server) {
        try {
            Files.createDirectories(dataDir());
            try (OutputStream out = Files.newOutputStream(dir.resolve("server.properties"))) {
                server.store(out, "Kafka broker " + nodeId + " (written by KafkaCluster)");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts the broker JVM ({@link BrokerMain}: formats the data directory on the first start, then
     * runs the broker); readiness is the cluster's to check.
     */
    void launch(String clusterId) {
        if (isAlive()) {
            throw new IllegalStateException("broker " + nodeId + " is running (pid " + process.pid() + ")");
        }
        process = spawn(List.of(BrokerMain.class.getName(), clusterId, dir.resolve("server.properties").toString()));
    }

    boolean isAlive() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** The process of the current run (or of the last one), if any was launched. */
    Process process() {
        return process;
    }

    /** SIGKILL, and waits until the process is gone (bounded). */
    void kill() {
        Process p = process;
        if (p == null) {
            return;
        }
        p.destroyForcibly();
        awaitExit(p, Duration.ofSeconds(30), "killed");
    }

    /** SIGKILL without waiting: for the shutdown hook. */
    void killNow() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
        }
    }

    /**
     * SIGTERM (the broker's controlled shutdown: leadership moves away first), and SIGKILL if it has
     * not exited within {@code grace}.
     */
    void stop(Duration grace) {
        Process p = process;
        if (p == null || !p.isAlive()) {
            return;
        }
        p.destroy();
        try {
            if (p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        kill();
    }

    /** The last lines of the broker's log, for failure messages. */
    String logTail() {
        try {
            if (!Files.exists(log())) {
                return "(no log)";
            }
            List<String> lines = Files.readAllLines(log(), StandardCharsets.ISO_8859_1);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    private Process spawn(List<String> mainAndArgs) {
        List<String> command = new ArrayList<>();
        command.add(runtime.java());
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(runtime.classPath());
        command.addAll(mainAndArgs);
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()));
        Map<String, String> env = builder.environment();
        // The broker scripts' variables would change nothing here, but a JAVA_TOOL_OPTIONS of the test
        // JVM (an agent, say) has no business in the broker.
        env.remove("JAVA_TOOL_OPTIONS");
        env.remove("JDK_JAVA_OPTIONS");
        try {
            Files.writeString(log(), "\n=== " + String.join(" ", mainAndArgs) + "\n", StandardCharsets.UTF_8,
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            return builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + command.getFirst() + " for broker " + nodeId, e);
        }
    }

    private void awaitExit(Process p, Duration timeout, String how) {
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("broker " + nodeId + " (pid " + p.pid() + ") " + how
                        + " but still running after " + timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for broker " + nodeId + " to exit", e);
        }
    }
}
