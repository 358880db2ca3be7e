package dev.corobridge.kafkabroker;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * How to launch a broker JVM: the java executable and the broker's class path.
 *
 * <p>The class path is this module's classes (the broker's main class, {@link BrokerMain}) and what
 * this module's build resolved ({@code kafka_2.13} and its runtime
 * dependencies, at the Kafka version of the root pom) and wrote to a file whose location the build
 * put into the resource {@code broker.properties}; the broker never runs on the class path of the
 * module under test, whose own versions (Spring Boot's, say) would mix with the broker's. The java
 * executable is the JVM running the caller (a JDK >= 21: this code is compiled for 21), unless the
 * system property {@code kafka.broker.java} names another.
 *
 * <p>Immutable; thread-safe.
 */
record BrokerRuntime(String java, String classPath, String kafkaVersion) {

    static BrokerRuntime fromBuild() {
        Properties build = new Properties();
        try (InputStream in = BrokerRuntime.class.getResourceAsStream("broker.properties")) {
            if (in == null) {
                throw new IllegalStateException("broker.properties is missing from the class path of "
                        + BrokerRuntime.class.getName() + ": build the module build-tools/kafka-broker");
            }
            build.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path file = Path.of(build.getProperty("classpath.file"));
        String classPath;
        try {
            classPath = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalStateException("the broker class path " + file + " cannot be read: build the module "
                    + "build-tools/kafka-broker (its generate-resources phase writes it)", e);
        }
        // The broker's main class, BrokerMain, lives in this module: its classes directory or jar.
        String harness;
        try {
            harness = Path.of(BrokerRuntime.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        return new BrokerRuntime(javaExecutable(), harness + File.pathSeparator + classPath,
                build.getProperty("kafka.version"));
    }

    private static String javaExecutable() {
        String configured = System.getProperty("kafka.broker.java");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        return ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }
}
