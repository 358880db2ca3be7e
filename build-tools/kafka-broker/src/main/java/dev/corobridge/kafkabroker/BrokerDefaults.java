package dev.corobridge.kafkabroker;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The broker settings {@link KafkaCluster} starts with: replication by cluster size, and sizes
 * for a small (2-core) CI machine shared with the tests: few threads, small buffers and heaps, no
 * initial rebalance delay, a broker fenced (and dropped from the ISR) within seconds of its death.
 *
 * <p>Stateless; thread-safe.
 */
final class BrokerDefaults {

    private BrokerDefaults() {
    }

    static Map<String, String> replication(String replicationFactor, String minInsyncReplicas) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("default.replication.factor", replicationFactor);
        p.put("min.insync.replicas", minInsyncReplicas);
        p.put("offsets.topic.replication.factor", replicationFactor);
        p.put("transaction.state.log.replication.factor", replicationFactor);
        p.put("transaction.state.log.min.isr", minInsyncReplicas);
        p.put("share.coordinator.state.topic.replication.factor", replicationFactor);
        p.put("share.coordinator.state.topic.min.isr", minInsyncReplicas);
        p.put("unclean.leader.election.enable", "false");
        return p;
    }

    static Map<String, String> smallMachine() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("auto.create.topics.enable", "false");
        p.put("num.partitions", "1");
        // Internal topics: 50 partitions each by default, slow to create with replication on 2 cores.
        p.put("offsets.topic.num.partitions", "5");
        p.put("transaction.state.log.num.partitions", "5");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("background.threads", "2");
        p.put("num.replica.fetchers", "1");
        p.put("num.recovery.threads.per.data.dir", "1");
        p.put("log.cleaner.threads", "1");
        // The cleaner allocates its dedupe buffer up front (128 MB by default): too much for the heap below.
        p.put("log.cleaner.dedupe.buffer.size", String.valueOf(8 * 1024 * 1024));
        // A dead broker is fenced after 6 s (default 9 s) and a stuck follower leaves the ISR after 10 s
        // (default 30 s), so acks=all writes resume soon after a broker is killed.
        p.put("broker.heartbeat.interval.ms", "1000");
        p.put("broker.session.timeout.ms", "6000");
        p.put("replica.lag.time.max.ms", "10000");
        return p;
    }

    static List<String> jvmOptions() {
        return List.of(
                "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC",
                // C1 only: a quicker start and less compilation competing with the tests for 2 cores
                // (a benchmark of the broker itself passes its own options).
                "-XX:TieredStopAtLevel=1",
                "-Djava.awt.headless=true",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
    }
}
