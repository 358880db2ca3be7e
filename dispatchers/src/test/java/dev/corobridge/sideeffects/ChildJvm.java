package dev.corobridge.sideeffects;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a {@code main} class of the tests in a JVM of its own, on this run's class path and JDK: for
 * checks of JVM-wide state (system properties, threads) that no earlier test may have touched.
 */
public final class ChildJvm {

    /** What the child printed and how it ended. */
    public record Result(int exitCode, List<String> out, String err) {
    }

    private ChildJvm() {
    }

    /**
     * The class path without SLF4J and Logback, which only the context-propagation tests need:
     * with them Netty logs its start-up at DEBUG to stdout (which the probes print on) and Logback
     * sets {@code user.timezone}; the probes check corobridge's own effects, as an application
     * without a logging backend has them.
     */
    static String withoutLogging(String classPath) {
        return java.util.Arrays.stream(classPath.split(File.pathSeparator))
                .filter(e -> {
                    String n = e.replace(File.separatorChar, '/');
                    return !n.contains("/ch/qos/logback/") && !n.contains("/org/slf4j/");
                })
                .collect(java.util.stream.Collectors.joining(File.pathSeparator));
    }

    /** Runs {@code main} with {@code jvmOptions} and {@code args}; fails if it takes over 2 minutes. */
    public static Result run(Class<?> main, List<String> jvmOptions, List<String> args) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("--enable-native-access=ALL-UNNAMED");
        command.add("-cp");
        command.add(withoutLogging(System.getProperty("java.class.path")));
        command.addAll(jvmOptions);
        command.add(main.getName());
        command.addAll(args);
        Path out = Files.createTempFile("child-jvm", ".out");
        Path err = Files.createTempFile("child-jvm", ".err");
        try {
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(2, TimeUnit.MINUTES)) {
                p.destroyForcibly().waitFor();
                throw new AssertionError("child JVM " + main.getSimpleName() + " did not end within 2 minutes; stderr:\n"
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Result(p.exitValue(), Files.readAllLines(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** Where {@code type}'s class file was loaded from (a classes directory or a jar). */
    public static String locationOf(Class<?> type) {
        try {
            return new File(type.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
