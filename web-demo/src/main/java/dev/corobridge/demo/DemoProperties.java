package dev.corobridge.demo;

import java.net.InetAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Pattern;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import dev.corobridge.demo.journal.JournalRecovery;

/**
 * Settings of the notes board, under {@code demo.*}; checked when bound, so a bad value stops the
 * service at start with the property named.
 *
 * @param dataDir          directory of the journal ({@code journal.log})
 * @param maxBody          larger request bodies are refused with 413
 * @param longPollTimeout  how long {@code /changes} waits for a change at most
 * @param eventBuffer      events a slow SSE subscriber may fall behind before it is disconnected
 * @param ioTimeout        limit for one journal operation at start-up and shutdown
 * @param journal          what to do with a damaged journal ({@code demo.journal.*})
 * @param http             limits on slow clients ({@code demo.http.*})
 * @param store            where the boards' changes become durable: {@code journal} (the default,
 *                         one process) or {@code kafka} (cluster mode, {@code demo.kafka.*})
 * @param replicaId        this replica's name in cluster mode (record headers, {@code Served-By},
 *                         {@code /api/live}); 1..64 of {@code [A-Za-z0-9._-]}; default: the host
 *                         name, or a generated id when the host has no usable name
 * @param kafka            cluster mode's settings ({@code demo.kafka.*})
 */
@ConfigurationProperties("demo")
public record DemoProperties(@DefaultValue("./data") Path dataDir,
                             @DefaultValue("64KB") DataSize maxBody,
                             @DefaultValue("30s") Duration longPollTimeout,
                             @DefaultValue("1024") int eventBuffer,
                             @DefaultValue("30s") Duration ioTimeout,
                             @DefaultValue JournalSettings journal,
                             @DefaultValue HttpSettings http,
                             @DefaultValue("journal") Store store,
                             String replicaId,
                             @DefaultValue KafkaSettings kafka) {

    /** Where the boards' changes become durable ({@code demo.store}). */
    public enum Store {
        /** The io_uring journal in {@code demo.data-dir}: one process. */
        JOURNAL,
        /** An Apache Kafka topic read in full by every replica: cluster mode. */
        KAFKA
    }

    private static final Pattern REPLICA_ID = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,249}");
    /** One broker address: a host name or IPv4 address, or an IPv6 address in brackets, and a port. */
    private static final Pattern BROKER = Pattern.compile("(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+):([0-9]{1,5})");

    /**
     * {@code value} as a list of {@code host:port} (blanks around the commas dropped), refused here
     * with the setting's name rather than later by the Kafka client with its own.
     */
    private static String brokerList(String value) {
        List<String> servers = new ArrayList<>();
        for (String entry : value.split(",", -1)) {
            String server = entry.strip();
            java.util.regex.Matcher m = BROKER.matcher(server);
            int port = m.matches() ? Integer.parseInt(m.group(2)) : 0;
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("demo.kafka.bootstrap-servers must be host:port[,host:port...] with "
                        + "ports 1..65535, was '" + value.strip() + "' ('" + server + "' is not host:port)");
            }
            servers.add(server);
        }
        return String.join(",", servers);
    }

    /**
     * Cluster mode's settings, under {@code demo.kafka.*} (used when {@code demo.store=kafka}).
     *
     * @param bootstrapServers  {@code host:port[,host:port...]} of the brokers; required in cluster mode
     * @param topic             the command topic; created at start when missing
     * @param partitions        its partitions when it is created (1..1024); boards are spread over
     *                          them by id, each board's changes in one partition's order
     * @param replicationFactor its replication factor when it is created (1..16); unset: the
     *                          brokers' {@code default.replication.factor}. 3 on three brokers
     * @param minInsyncReplicas its {@code min.insync.replicas} when it is created (1..replication
     *                          factor, which must then be set too); unset: the brokers' default.
     *                          2 with replication factor 3, so an acknowledged write is on two brokers
     * @param appendTimeout     a write that is not durable and applied here within this fails with
     *                          503 (100ms..5m); also the producer's delivery timeout
     * @param startWait         how long the start waits for the broker before the service starts
     *                          without it, serving its snapshot's boards and refusing writes until
     *                          the broker is reachable (0..10m)
     * @param snapshotInterval  how often the boards are written to a snapshot in
     *                          {@code demo.data-dir}, so a restart replays only the log's tail
     *                          (1s..1h)
     */
    public record KafkaSettings(String bootstrapServers,
                                @DefaultValue("notes-board-changes") String topic,
                                @DefaultValue("8") int partitions,
                                Short replicationFactor,
                                Integer minInsyncReplicas,
                                @DefaultValue("5s") Duration appendTimeout,
                                @DefaultValue("15s") Duration startWait,
                                @DefaultValue("30s") Duration snapshotInterval) {

        public KafkaSettings {
            if (bootstrapServers != null && bootstrapServers.isBlank()) {
                bootstrapServers = null;
            }
            if (bootstrapServers != null) {
                bootstrapServers = brokerList(bootstrapServers);
            }
            if (topic == null || !TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
                throw new IllegalArgumentException("demo.kafka.topic must be 1..249 of [A-Za-z0-9._-], was '" + topic + "'");
            }
            if (partitions < 1 || partitions > 1024) {
                throw new IllegalArgumentException("demo.kafka.partitions must be within 1..1024, was " + partitions);
            }
            if (replicationFactor != null && (replicationFactor < 1 || replicationFactor > 16)) {
                throw new IllegalArgumentException("demo.kafka.replication-factor must be within 1..16, was "
                        + replicationFactor);
            }
            if (minInsyncReplicas != null && replicationFactor == null) {
                // A topic with more in-sync replicas than replicas refuses every write: the number is
                // checked against the replication factor, so it needs one.
                throw new IllegalArgumentException("demo.kafka.min-insync-replicas (" + minInsyncReplicas
                        + ") needs demo.kafka.replication-factor as well: the topic is created with both");
            }
            if (minInsyncReplicas != null && (minInsyncReplicas < 1 || minInsyncReplicas > replicationFactor)) {
                throw new IllegalArgumentException("demo.kafka.min-insync-replicas must be within 1..demo.kafka."
                        + "replication-factor (" + replicationFactor + "), was " + minInsyncReplicas);
            }
            if (appendTimeout.compareTo(Duration.ofMillis(100)) < 0 || appendTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
                throw new IllegalArgumentException("demo.kafka.append-timeout must be within 100ms..5m, was " + appendTimeout);
            }
            if (startWait.isNegative() || startWait.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException("demo.kafka.start-wait must be within 0..10m, was " + startWait);
            }
            if (snapshotInterval.compareTo(Duration.ofSeconds(1)) < 0 || snapshotInterval.compareTo(Duration.ofHours(1)) > 0) {
                throw new IllegalArgumentException("demo.kafka.snapshot-interval must be within 1s..1h, was "
                        + snapshotInterval);
            }
        }
    }

    /**
     * Limits on slow clients, under {@code demo.http.*}.
     *
     * @param headerTimeout once the first byte of a request arrived, its request line and headers
     *                      must be complete within this, or the request is answered 408 and the
     *                      connection closed (a client sending its headers a byte at a time would
     *                      otherwise hold the connection forever); 1s..10m
     * @param bodyTimeout   once a request's headers arrived, its body must be complete within this
     *                      (the whole body, however it trickles in), or the connection is closed,
     *                      after a 408 if nothing of the answer was sent yet; 1s..10m. The default
     *                      (20s) takes the default {@code demo.max-body} (64KB) at 3.2 KB/s or more:
     *                      raise it with a larger {@code demo.max-body} for slow clients
     * @param maxUnsentOutput the most that all connections together may hold of answers written to
     *                      clients that stopped reading them (a large board's stream or JSON): a
     *                      connection counts once its client took less than 64KB in a second; above
     *                      the budget the stalled connections holding the most are closed; 1MB..64GB
     * @param maxConnections the most connections at once; one more is answered 503 and closed.
     *                      0 (the default): 90% of the process's open-file limit, so that the
     *                      service keeps descriptors for its own files; 0..10000000
     */
    public record HttpSettings(@DefaultValue("10s") Duration headerTimeout,
                               @DefaultValue("20s") Duration bodyTimeout,
                               @DefaultValue("256MB") DataSize maxUnsentOutput,
                               @DefaultValue("0") int maxConnections) {

        public HttpSettings {
            check("demo.http.header-timeout", headerTimeout);
            check("demo.http.body-timeout", bodyTimeout);
            if (maxUnsentOutput.toBytes() < 1024 * 1024 || maxUnsentOutput.toBytes() > 64L * 1024 * 1024 * 1024) {
                throw new IllegalArgumentException("demo.http.max-unsent-output must be within 1MB..64GB, was " + maxUnsentOutput);
            }
            if (maxConnections < 0 || maxConnections > 10_000_000) {
                throw new IllegalArgumentException("demo.http.max-connections must be within 0..10000000 (0: 90% of the "
                        + "process's open-file limit), was " + maxConnections);
            }
        }

        private static void check(String property, Duration timeout) {
            if (timeout.compareTo(Duration.ofSeconds(1)) < 0 || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
                throw new IllegalArgumentException(property + " must be within 1s..10m, was " + timeout);
            }
        }
    }

    /**
     * Settings of the journal, under {@code demo.journal.*}.
     *
     * @param repair {@code demo.journal.repair} (environment: {@code DEMO_JOURNAL_REPAIR}): if the
     *               journal is corrupted (damage followed by intact records), keep the damaged file
     *               beside it, write a new journal holding every intact record and log what was
     *               dropped, instead of refusing to start. Off by default; turn it off again after
     *               the repair.
     */
    public record JournalSettings(@DefaultValue("false") boolean repair) {

        /** The journal's recovery for these settings. */
        public JournalRecovery recovery() {
            return repair ? JournalRecovery.REPAIR : JournalRecovery.REFUSE;
        }
    }

    public DemoProperties {
        if (maxBody.toBytes() < 1024 || maxBody.toBytes() > 16L * 1024 * 1024) {
            throw new IllegalArgumentException("demo.max-body must be within 1KB..16MB, was " + maxBody);
        }
        if (longPollTimeout.isNegative() || longPollTimeout.isZero() || longPollTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("demo.long-poll-timeout must be within (0, 10m], was " + longPollTimeout);
        }
        if (eventBuffer < 16 || eventBuffer > 1 << 20) {
            throw new IllegalArgumentException("demo.event-buffer must be within 16..1048576, was " + eventBuffer);
        }
        if (ioTimeout.isNegative() || ioTimeout.isZero()) {
            throw new IllegalArgumentException("demo.io-timeout must be positive, was " + ioTimeout);
        }
        if (replicaId == null) {
            replicaId = defaultReplicaId();
        } else if (!REPLICA_ID.matcher(replicaId).matches()) { // also when given empty: not the host name then
            throw new IllegalArgumentException("demo.replica-id must be 1..64 of [A-Za-z0-9._-], was '" + replicaId + "'");
        }
        if (store == Store.KAFKA && kafka.bootstrapServers() == null) {
            throw new IllegalArgumentException("demo.store=kafka needs demo.kafka.bootstrap-servers (host:port[,host:port...])");
        }
    }

    /** The host's name when it is a valid replica id, else {@code replica-} and 8 random hex digits. */
    private static String defaultReplicaId() {
        try {
            String host = InetAddress.getLocalHost().getHostName();
            if (REPLICA_ID.matcher(host).matches() && !host.equals("localhost")) {
                return host;
            }
        } catch (java.io.IOException | SecurityException e) {
            // no usable host name: a generated id
        }
        byte[] b = new byte[4];
        new SecureRandom().nextBytes(b);
        return "replica-" + HexFormat.of().formatHex(b);
    }

    /** Whether the changes go to Kafka (cluster mode). */
    public boolean clusterMode() {
        return store == Store.KAFKA;
    }

    /** The snapshot file of cluster mode. */
    public Path snapshotFile() {
        return dataDir.resolve("boards.snapshot");
    }

    /** The journal file. */
    public Path journalFile() {
        return dataDir.resolve("journal.log");
    }
}
