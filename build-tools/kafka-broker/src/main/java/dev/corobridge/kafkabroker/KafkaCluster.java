package dev.corobridge.kafkabroker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;

/**
 * Real Apache Kafka brokers (KRaft mode, from the Maven artifacts) as child JVM processes on
 * 127.0.0.1, for tests: one broker, or three that form a three-voter controller quorum, so that
 * killing any one of them leaves a working cluster.
 *
 * <pre>{@code
 * try (KafkaCluster kafka = KafkaCluster.start(3, tempDir)) {
 *     kafka.createTopic("notes", 6, 3, Map.of());
 *     ... clients on kafka.bootstrapServers() ...
 *     kafka.kill(1);      // SIGKILL
 *     kafka.restart(1);   // same ports and data, back when the cluster lists it again
 * }
 * }</pre>
 *
 * <p>Each broker runs broker and controller roles in one JVM (node ids 0..n-1) with its own
 * directory under the given one ({@code broker-<id>/}: {@code server.properties}, {@code data/},
 * {@code broker.log}) and two ports chosen at start and kept across restarts. The quorum is static
 * ({@code controller.quorum.voters}); each broker JVM formats its data directory on its first start
 * ({@code kafka.tools.StorageTool}) and runs the broker ({@code kafka.Kafka}). Replication defaults
 * follow the size: with three brokers, replication factor 3 and {@code min.insync.replicas=2}
 * (an {@code acks=all} write survives the loss of one broker); with one, 1 and 1. Topics are not
 * created automatically: {@link #createTopic}, or the application's own Admin, creates them.
 * The settings suit a small CI machine (small heaps, few threads, no initial rebalance delay, a
 * broker fenced about 6 s after it stops heart-beating).
 *
 * <p>Readiness is asked of the cluster itself: a start or restart returns once the cluster's
 * metadata lists every running broker (unfenced) and the (re)started broker answers on its own
 * port; every wait is bounded, and a broker that exits while being waited for fails the call with
 * the end of its log.
 *
 * <p>Everything started is stopped by {@link #close()}, and by a JVM shutdown hook if the test JVM
 * exits without closing. Each broker JVM carries {@code -Dcorobridge.kafka-broker.owner=<pid of
 * this JVM>} and halts by itself within seconds once that JVM is gone, also when it died without
 * running its hooks (a signal, a native crash): a crashed run leaves no broker behind.
 *
 * <p>Thread-safe: the operations are serialised on this object.
 */
public final class KafkaCluster implements AutoCloseable {

    /** System property each broker JVM carries, with the pid of the JVM that started it. */
    public static final String OWNER_PROPERTY = "corobridge.kafka-broker.owner";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    private final List<BrokerProcess> brokers;
    private final String clusterId;
    private final Map<String, String> overrides;
    private final Thread shutdownHook;
    private boolean closed;

    private KafkaCluster(List<BrokerProcess> brokers, String clusterId, Map<String, String> overrides) {
        this.brokers = brokers;
        this.clusterId = clusterId;
        this.overrides = Map.copyOf(overrides);
        this.shutdownHook = new Thread(() -> brokers.forEach(BrokerProcess::killNow), "kafka-cluster-shutdown");
    }

    /** Starts {@code brokers} brokers (1 or 3) with their directories under {@code dir}. */
    public static KafkaCluster start(int brokers, Path dir) {
        return builder().brokers(brokers).dir(dir).start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** {@code host:port,...} of every broker, running or not: what a client's bootstrap.servers takes. */
    public String bootstrapServers() {
        return brokers.stream().map(BrokerProcess::address).collect(Collectors.joining(","));
    }

    /** {@code host:port} of one broker. */
    public String address(int broker) {
        return broker(broker).address();
    }

    public int size() {
        return brokers.size();
    }

    public String clusterId() {
        return clusterId;
    }

    /** The broker's log file (the output of every JVM started for it). */
    public Path logFile(int broker) {
        return broker(broker).log();
    }

    public synchronized boolean isRunning(int broker) {
        return broker(broker).isAlive();
    }

    /** The process of the broker's current (or last) run. */
    public synchronized ProcessHandle process(int broker) {
        Process p = broker(broker).process();
        if (p == null) {
            throw new IllegalStateException("broker " + broker + " was never started");
        }
        return p.toHandle();
    }

    /** SIGKILL: the broker dies at once, as with a power cut (its data directory stays). */
    public synchronized void kill(int broker) {
        checkOpen();
        broker(broker).kill();
    }

    /** SIGTERM: a controlled shutdown (SIGKILL if it takes more than 30 s). */
    public synchronized void stop(int broker) {
        checkOpen();
        broker(broker).stop(STOP_GRACE);
    }

    /**
     * Starts a killed or stopped broker again with its ports and data, and returns once it answers
     * and the cluster lists it with every other running broker.
     *
     * @throws IllegalStateException if the broker is running, or does not become ready in time
     */
    public synchronized void restart(int broker) {
        checkOpen();
        BrokerProcess b = broker(broker);
        b.launch(clusterId);
        awaitReady(List.of(b));
    }

    /**
     * Creates a topic and returns once every partition has a leader that serves it and all its
     * replicas in sync ({@link #awaitFullyReplicated}), so that it takes writes at once.
     *
     * @param configs topic configs such as {@code min.insync.replicas}; the broker defaults otherwise
     */
    public void createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        try (Admin admin = admin(bootstrapServers())) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) replicationFactor).configs(configs)))
                    .all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("creating topic " + name + " failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("creating topic " + name + " took more than 60 s", e);
        }
        awaitFullyReplicated(name, Duration.ofSeconds(60));
    }

    /**
     * Waits until every partition of the topic has a leader and all its replicas in the ISR (after a
     * broker restart: until it has caught up), and every leader answers for its partition.
     *
     * <p>The last part matters for a topic just created: a broker names the leader in its metadata
     * a moment before that leader serves the partition, and an idempotent producer whose first
     * request arrives in that moment is turned away (NOT_LEADER_OR_FOLLOWER) while its next request
     * may be appended to the still empty partition; the broker (up to Kafka 4.4) then refuses
     * every retry of the first one as out of order until it expires, its records lost. A
     * ListOffsets request is answered by the partition's leader only once it serves the partition,
     * as a produce request is, and writes nothing.
     *
     * @throws IllegalStateException with the last state seen, if that does not happen in time
     */
    public void awaitFullyReplicated(String topic, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        String last = "no answer";
        try (Admin admin = admin(bootstrapServers())) {
            while (true) {
                try {
                    TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
                            .get(5, TimeUnit.SECONDS).get(topic);
                    boolean ok = !d.partitions().isEmpty();
                    StringBuilder state = new StringBuilder();
                    for (TopicPartitionInfo p : d.partitions()) {
                        ok &= p.leader() != null && !p.leader().isEmpty() && p.isr().size() == p.replicas().size();
                        state.append(p.partition()).append(": leader ").append(p.leader() == null ? "-" : p.leader().id())
                                .append(" isr ").append(ids(p.isr())).append(" of ").append(ids(p.replicas())).append("; ");
                    }
                    if (ok) {
                        Map<TopicPartition, OffsetSpec> ends = new LinkedHashMap<>();
                        for (TopicPartitionInfo p : d.partitions()) {
                            ends.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
                        }
                        try {
                            admin.listOffsets(ends).all().get(5, TimeUnit.SECONDS);
                            return;
                        } catch (ExecutionException | TimeoutException notServing) {
                            state.append("a leader does not serve yet: ").append(
                                    notServing.getCause() == null ? notServing : notServing.getCause());
                        }
                    }
                    last = state.toString();
                } catch (ExecutionException | TimeoutException e) {
                    last = String.valueOf(e.getCause() == null ? e : e.getCause());
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("topic " + topic + " not fully replicated after " + timeout + ": " + last);
                }
                pause();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for topic " + topic, e);
        }
    }

    /** Kills every broker still running (SIGKILL: their data is the caller's throw-away directory). */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        for (BrokerProcess b : brokers) {
            try {
                b.kill();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // The JVM is exiting: the hook runs anyway and kills what is already dead.
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void startAll() {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            for (BrokerProcess b : brokers) {
                b.configure(serverProperties(b));
                b.launch(clusterId);
            }
            awaitReady(brokers);
        } catch (RuntimeException e) {
            try {
                close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * Until the cluster lists every running broker as alive and each of {@code started} answers on
     * its own listener; fails early, with the broker's log, if one of them exits.
     */
    private void awaitReady(List<BrokerProcess> started) {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        String last = "no answer";
        List<Admin> admins = new ArrayList<>();
        try {
            Admin cluster = admin(bootstrapServers());
            admins.add(cluster);
            Map<BrokerProcess, Admin> own = new LinkedHashMap<>();
            for (BrokerProcess b : started) {
                Admin a = admin(b.address());
                admins.add(a);
                own.put(b, a);
            }
            while (true) {
                for (BrokerProcess b : started) {
                    if (!b.isAlive()) {
                        throw new IllegalStateException("broker " + b.nodeId() + " exited (code "
                                + b.process().exitValue() + ") while starting; its log " + b.log() + " ends with:\n"
                                + b.logTail());
                    }
                }
                Set<Integer> expected = brokers.stream().filter(BrokerProcess::isAlive).map(BrokerProcess::nodeId)
                        .collect(Collectors.toCollection(TreeSet::new));
                try {
                    Set<Integer> listed = nodeIds(cluster);
                    boolean ready = listed.containsAll(expected);
                    last = "cluster lists " + listed + ", running " + expected;
                    for (var e : own.entrySet()) {
                        if (!ready) {
                            break;
                        }
                        Set<Integer> seen = nodeIds(e.getValue());
                        ready = seen.contains(e.getKey().nodeId());
                        last = "broker " + e.getKey().nodeId() + " lists " + seen;
                    }
                    if (ready) {
                        return;
                    }
                } catch (ExecutionException | TimeoutException e) {
                    last = String.valueOf(e.getCause() == null ? e : e.getCause());
                }
                if (System.nanoTime() - deadline > 0) {
                    StringBuilder logs = new StringBuilder();
                    for (BrokerProcess b : started) {
                        logs.append("\n--- broker ").append(b.nodeId()).append(", ").append(b.log()).append(":\n")
                                .append(b.logTail());
                    }
                    throw new IllegalStateException("Kafka brokers " + started.stream().map(BrokerProcess::nodeId).toList()
                            + " not ready after " + READY_TIMEOUT + " (" + last + ")" + logs);
                }
                pause();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the Kafka brokers", e);
        } finally {
            admins.forEach(a -> a.close(Duration.ofSeconds(5)));
        }
    }

    private static Set<Integer> nodeIds(Admin admin) throws ExecutionException, TimeoutException, InterruptedException {
        Collection<Node> nodes = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS);
        return nodes.stream().map(Node::id).collect(Collectors.toCollection(TreeSet::new));
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    /** A poll interval: the waits above re-ask the cluster, they do not sleep for an outcome. */
    private static void pause() throws InterruptedException {
        Thread.sleep(200);
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "100");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "kafka-cluster-harness");
        return Admin.create(p);
    }

    private Properties serverProperties(BrokerProcess b) {
        int n = brokers.size();
        String rf = String.valueOf(Math.min(3, n));
        String minIsr = n >= 3 ? "2" : "1";
        Properties p = new Properties();
        p.setProperty("process.roles", "broker,controller");
        p.setProperty("node.id", String.valueOf(b.nodeId()));
        p.setProperty("controller.quorum.voters", brokers.stream()
                .map(o -> o.nodeId() + "@127.0.0.1:" + o.ports().controller()).collect(Collectors.joining(",")));
        p.setProperty("listeners", "PLAINTEXT://127.0.0.1:" + b.ports().broker() + ",CONTROLLER://127.0.0.1:"
                + b.ports().controller());
        p.setProperty("advertised.listeners", "PLAINTEXT://127.0.0.1:" + b.ports().broker());
        p.setProperty("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.setProperty("controller.listener.names", "CONTROLLER");
        p.setProperty("inter.broker.listener.name", "PLAINTEXT");
        p.setProperty("log.dirs", b.dataDir().toString());
        p.putAll(BrokerDefaults.replication(rf, minIsr));
        p.putAll(BrokerDefaults.smallMachine());
        p.putAll(overrides);
        return p;
    }

    private BrokerProcess broker(int broker) {
        if (broker < 0 || broker >= brokers.size()) {
            throw new IndexOutOfBoundsException("broker " + broker + " of " + brokers.size());
        }
        return brokers.get(broker);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("the Kafka cluster is closed");
        }
    }

    /** Options for {@link KafkaCluster}; not thread-safe. */
    public static final class Builder {
        private int brokers = 1;
        private Path dir;
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();
        private List<String> jvmOptions = BrokerDefaults.jvmOptions();

        private Builder() {
        }

        /** 1 (a single broker) or 3 (a three-voter quorum). Default 1. */
        public Builder brokers(int count) {
            if (count != 1 && count != 3) {
                throw new IllegalArgumentException("1 or 3 brokers, not " + count);
            }
            this.brokers = count;
            return this;
        }

        /** The directory for the brokers' directories (required; e.g. a JUnit temporary directory). */
        public Builder dir(Path dir) {
            this.dir = dir;
            return this;
        }

        /** A server.properties entry for every broker, over the defaults. */
        public Builder brokerProperty(String key, String value) {
            brokerProperties.put(key, value);
            return this;
        }

        /** The broker JVMs' options, instead of the defaults (a 256 MB heap, serial GC). */
        public Builder jvmOptions(List<String> options) {
            this.jvmOptions = List.copyOf(options);
            return this;
        }

        /**
         * Formats and starts the brokers and returns once the cluster lists them all.
         *
         * @throws IllegalStateException with the end of the broker's log, if one does not come up
         */
        public KafkaCluster start() {
            if (dir == null) {
                throw new IllegalStateException("dir(...) is required");
            }
            BrokerRuntime runtime = BrokerRuntime.fromBuild();
            List<BrokerPorts> ports = BrokerPorts.allocate(brokers);
            List<String> options = new ArrayList<>(jvmOptions);
            options.add("-D" + OWNER_PROPERTY + "=" + ProcessHandle.current().pid());
            List<BrokerProcess> list = new ArrayList<>();
            for (int i = 0; i < brokers; i++) {
                Path brokerDir = dir.resolve("broker-" + i);
                try {
                    Files.createDirectories(brokerDir);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                list.add(new BrokerProcess(i, brokerDir, ports.get(i), runtime, options));
            }
            KafkaCluster cluster = new KafkaCluster(List.copyOf(list), Uuid.randomUuid().toString(), brokerProperties);
            cluster.startAll();
            return cluster;
        }
    }
}
