package dev.corobridge.it;

import dev.corobridge.kafkabroker.KafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The demo in cluster mode for the failure tests: real Kafka brokers ({@link KafkaCluster}, child
 * JVMs) and {@code n} demo replicas, each the packaged jar as its own JVM ({@link DemoProcess}) with
 * {@code demo.store=kafka}, the brokers' bootstrap servers, topic {@value #TOPIC} with
 * {@value #PARTITIONS} partitions (the replicas create it: replication factor 3 and
 * {@code min.insync.replicas=2} on three brokers, 1 and 1 on one), replica ids {@code replica-1..n}, its
 * own data directory (snapshots) and a port kept across restarts.
 *
 * <p>Replica {@code i} (0-based) can be SIGKILLed, restarted from its data directory, or restarted
 * with an empty one; {@link #awaitConverged} compares the {@link BoardHashes} of every running
 * replica until they are equal. {@link #close()} stops the replicas, then the brokers.
 *
 * <p>Not thread-safe: the test thread drives it (the load threads only use {@link #http}).
 */
final class ReplicaCluster implements AutoCloseable {

    static final String TOPIC = "notes";
    static final int PARTITIONS = 6;

    private final KafkaCluster kafka;
    private final Path dir;
    private final String name;
    private final DemoProcess[] replicas;
    private final int[] ports;
    private final int[] starts;

    private ReplicaCluster(KafkaCluster kafka, Path dir, String name, int replicas) {
        this.kafka = kafka;
        this.dir = dir;
        this.name = name;
        this.replicas = new DemoProcess[replicas];
        this.ports = new int[replicas];
        this.starts = new int[replicas];
        for (int i = 0; i < replicas; i++) {
            ports[i] = DemoProcess.freePort();
        }
    }

    /**
     * Starts {@code brokers} brokers (1 or 3), then {@code replicas} replicas together, and returns
     * once every one is ready (readiness UP). They start at once, as a deployment's would: each
     * creates the topic when it finds none (one wins, the others find it), and the JVM starts
     * overlap.
     */
    static ReplicaCluster start(String name, int brokers, int replicas, Path dir) {
        KafkaCluster kafka = KafkaCluster.start(brokers, dir.resolve("kafka"));
        ReplicaCluster cluster = new ReplicaCluster(kafka, dir, name, replicas);
        try {
            for (int i = 0; i < replicas; i++) {
                cluster.launchReplica(i);
            }
            for (int i = 0; i < replicas; i++) {
                cluster.replica(i).awaitReady(Duration.ofSeconds(120));
            }
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** Starts the brokers only; the test starts the replicas ({@link #startReplica}, {@link #launchReplica}). */
    static ReplicaCluster brokersOnly(String name, int brokers, int replicas, Path dir) {
        return new ReplicaCluster(KafkaCluster.start(brokers, dir.resolve("kafka")), dir, name, replicas);
    }

    KafkaCluster kafka() {
        return kafka;
    }

    int size() {
        return replicas.length;
    }

    static String replicaId(int i) {
        return "replica-" + (i + 1);
    }

    DemoProcess replica(int i) {
        return Objects.requireNonNull(replicas[i], () -> replicaId(i) + " was never started");
    }

    boolean isRunning(int i) {
        return replicas[i] != null && replicas[i].isAlive();
    }

    /** A client of replica {@code i} (its port does not change across restarts). */
    Http http(int i, Duration timeout) {
        return new Http("http://127.0.0.1:" + ports[i], timeout);
    }

    Path dataDir(int i) {
        return dir.resolve(replicaId(i));
    }

    /** Starts replica {@code i} (again) on its port with its data directory; returns when it is ready. */
    DemoProcess startReplica(int i) {
        if (isRunning(i)) {
            throw new IllegalStateException(replicaId(i) + " is running");
        }
        starts[i]++;
        replicas[i] = DemoProcess.start(name + "-" + replicaId(i) + "-" + starts[i], dataDir(i), ports[i], properties(i));
        return replicas[i];
    }

    /**
     * Starts replica {@code i} without waiting for its readiness (e.g. while Kafka is unreachable),
     * with {@code extraProperties} ({@code key=value}) after the cluster's own.
     */
    DemoProcess launchReplica(int i, String... extraProperties) {
        if (isRunning(i)) {
            throw new IllegalStateException(replicaId(i) + " is running");
        }
        starts[i]++;
        String[] props = java.util.stream.Stream.concat(java.util.Arrays.stream(properties(i)),
                java.util.Arrays.stream(extraProperties)).toArray(String[]::new);
        replicas[i] = DemoProcess.launch(name + "-" + replicaId(i) + "-" + starts[i], dataDir(i), ports[i], props);
        return replicas[i];
    }

    /** Starts replica {@code i} with a new, empty data directory: it has to catch up from the log alone. */
    DemoProcess startReplicaWithEmptyDisk(int i) {
        if (isRunning(i)) {
            throw new IllegalStateException(replicaId(i) + " is running");
        }
        starts[i]++;
        Path empty = dir.resolve(replicaId(i) + "-empty-" + starts[i]);
        replicas[i] = DemoProcess.start(name + "-" + replicaId(i) + "-" + starts[i], empty, ports[i], properties(i));
        return replicas[i];
    }

    /** SIGKILL replica {@code i} and waits until the process is gone. */
    void killReplica(int i) {
        replica(i).kill();
    }

    /** Board hashes of replica {@code i}. */
    Map<String, String> boardHashes(int i) {
        return BoardHashes.of(http(i, Duration.ofSeconds(30)));
    }

    /**
     * Waits (bounded) until every running replica holds the same boards in the same state; returns
     * that state (board id to hash).
     *
     * @throws AssertionError naming the boards that differ, if they do not converge in time
     */
    Map<String, String> awaitConverged(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Map<String, String>> last = new HashMap<>();
        while (true) {
            last.clear();
            for (int i = 0; i < replicas.length; i++) {
                if (isRunning(i)) {
                    last.put(replicaId(i), boardHashes(i));
                }
            }
            if (!last.isEmpty() && last.values().stream().distinct().count() == 1) {
                return last.values().iterator().next();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("replicas did not converge within " + timeout + ": " + differences(last));
            }
            // Re-ask: the replicas apply the log's tail asynchronously; this is a poll interval, not a wait for an outcome.
            DemoProcess.sleep(250);
        }
    }

    private static String differences(Map<String, Map<String, String>> byReplica) {
        Map<String, Map<String, String>> byBoard = new java.util.TreeMap<>();
        byReplica.forEach((replica, boards) -> boards.forEach((board, hash) ->
                byBoard.computeIfAbsent(board, b -> new java.util.TreeMap<>()).put(replica, hash.substring(0, 12))));
        List<String> out = new ArrayList<>();
        byBoard.forEach((board, hashes) -> {
            if (hashes.size() != byReplica.size() || hashes.values().stream().distinct().count() > 1) {
                out.add(board + " " + hashes);
            }
        });
        return out.size() + " boards differ (of " + byBoard.size() + "): "
                + String.join("; ", out.subList(0, Math.min(out.size(), 20)));
    }

    private String[] properties(int i) {
        return new String[] {
            "demo.store=kafka",
            "demo.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
            "demo.kafka.topic=" + TOPIC,
            "demo.kafka.partitions=" + PARTITIONS,
            // The replicas create the topic: replicated on every broker up to 3, acks=all durable on 2 of 3.
            "demo.kafka.replication-factor=" + Math.min(3, kafka.size()),
            "demo.kafka.min-insync-replicas=" + (kafka.size() >= 3 ? 2 : 1),
            // Frequent snapshots, so a restarted replica starts from one and replays only the tail.
            "demo.kafka.snapshot-interval=2s",
            "demo.replica-id=" + replicaId(i),
            DemoProcess.QUICK_START,
        };
    }

    /** Stops every replica (gracefully), then the brokers. */
    @Override
    public void close() {
        for (DemoProcess r : replicas) {
            if (r != null) {
                r.close();
            }
        }
        kafka.close();
    }
}
