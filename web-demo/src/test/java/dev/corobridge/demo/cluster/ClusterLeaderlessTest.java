package dev.corobridge.demo.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Every partition of the topic without a leader while the brokers still answer (three brokers, the
 * topic's one partition on a single broker that goes away): no write can be taken, so the replica
 * says so as when no broker answers (health DOWN with the reason, writes refused with 503 at once,
 * reads served) instead of reporting UP and letting each write wait for the append timeout; it
 * recovers without a restart when the partition has a leader again. A topic of which only some
 * partitions lost their leader is UP, names them in {@code leaderlessPartitions}, and takes writes to
 * the others.
 */
class ClusterLeaderlessTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aTopicWithoutAnyLeaderIsDownAndRefusesWritesAtOnce() throws Exception {
        try (TestKafka kafka = TestKafka.start(3)) {
            String topic = TestKafka.freshTopic();
            String partly = TestKafka.freshTopic();
            try (Admin admin = Admin.create(Map.<String, Object>of("bootstrap.servers", kafka.bootstrap()))) {
                // Replication factor 1, on broker 2 only: when it goes, nothing can lead the partition.
                admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(2))))).all().get(60, TimeUnit.SECONDS);
                // Partition 0 on broker 2, partition 1 on broker 0: one of the two loses its leader.
                admin.createTopics(List.of(new NewTopic(partly, Map.of(0, List.of(2), 1, List.of(0))))).all()
                        .get(60, TimeUnit.SECONDS);
            }
            Map<String, String> settings = Map.of("demo.kafka.partitions", "1", "demo.kafka.append-timeout", "20s",
                    "demo.kafka.start-wait", "2s", "management.endpoint.health.show-details", "always");
            Map<String, String> twoPartitions = new java.util.HashMap<>(settings);
            twoPartitions.put("demo.kafka.partitions", "2");
            twoPartitions.put("demo.kafka.append-timeout", "5s");
            try (Replica a = Replica.start("a", kafka.bootstrap(), topic, dir.resolve("a"), settings);
                 Replica b = Replica.start("b", kafka.bootstrap(), partly, dir.resolve("b"), twoPartitions)) {
                String board = a.post("/api/boards", "{\"name\":\"leaderless\"}").json().path("id").asString();
                assertThat(a.awaitHealth("UP", WAIT).path("components").path("journal").path("details")
                        .path("leaderlessPartitions").isMissingNode()).isTrue();
                // A board of b's on partition 1, whose broker stays.
                dev.corobridge.demo.changelog.kafka.BoardPartitioner partitioner =
                        new dev.corobridge.demo.changelog.kafka.BoardPartitioner(2);
                String onOne = null;
                while (onOne == null) {
                    String id = b.post("/api/boards", "{\"name\":\"partly\"}").json().path("id").asString();
                    if (partitioner.partitionOf(id) == 1) {
                        onOne = id;
                    }
                }

                kafka.cluster.kill(2);
                JsonNode down = a.awaitHealth("DOWN", WAIT).path("components").path("journal").path("details");
                assertThat(down.path("reason").asString()).contains("no partition of").contains("has a leader");
                assertThat(down.path("leaderlessPartitions").toString()).isEqualTo("[0]");

                // Only partition 0 of b's topic lost its leader: UP, named, and writes to partition 1 go on.
                long deadline = System.nanoTime() + WAIT.toNanos();
                JsonNode partlyHealth = b.get("/actuator/health").json().path("components").path("journal").path("details");
                while (!partlyHealth.path("leaderlessPartitions").toString().equals("[0]")) {
                    assertThat(System.nanoTime() - deadline).as("b names its leaderless partition: %s", partlyHealth)
                            .isNegative();
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // polling pace
                    partlyHealth = b.get("/actuator/health").json().path("components").path("journal").path("details");
                }
                assertThat(b.get("/actuator/health").json().path("status").asString()).isEqualTo("UP");
                Replica.Response taken = b.post("/api/boards/" + onOne + "/notes", "{\"text\":\"partition 1\"}");
                assertThat(taken.status()).as(taken.body()).isEqualTo(201);

                long start = System.nanoTime();
                Replica.Response refused = a.post("/api/boards/" + board + "/notes", "{\"text\":\"refused\"}");
                assertThat(refused.status()).as(refused.body()).isEqualTo(503);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).as("refused at once, not after the append timeout")
                        .isLessThan(Duration.ofSeconds(15));
                assertThat(refused.header("Retry-After")).isEqualTo("1");
                assertThat(a.get("/api/boards/" + board).status()).isEqualTo(200);

                kafka.cluster.restart(2);
                a.awaitHealth("UP", WAIT);
                assertThat(a.post("/api/boards/" + board + "/notes", "{\"text\":\"back\"}").status()).isEqualTo(201);
            }
        }
    }
}
