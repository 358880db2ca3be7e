package dev.corobridge.demo.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A replica that cannot serve as configured does not start, with Spring Boot's failure report
 * naming the cause and the way out, as a journal-mode service does:
 * <ul>
 * <li>the command topic has fewer partitions than {@code demo.kafka.partitions} (boards would go to
 *     partitions it does not have): before, the replica started, reported ready with no boards and
 *     refused every write with a 503 that said to try again;</li>
 * <li>another replica runs on the same data directory: before, both started and replaced each
 *     other's snapshot files mid-write.</li>
 * </ul>
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterStartRefusalTest {

    private static TestKafka kafka;

    @TempDir
    Path dir;

    @BeforeAll
    static void broker() {
        kafka = TestKafka.start();
    }

    @AfterAll
    static void stopBroker() {
        kafka.close();
    }

    @Test
    void aTopicWithFewerPartitionsThanConfiguredStopsTheStart(CapturedOutput output) throws Exception {
        String topic = TestKafka.freshTopic();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrap()))) {
            admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        Throwable refused = catchThrowable(() -> Replica.start("few", kafka.bootstrap(), topic, dir.resolve("few"),
                Map.of("demo.kafka.partitions", "4")).close());
        assertThat(refused).isNotNull();
        assertThat(output.getAll())
                .contains("APPLICATION FAILED TO START")
                .contains("topic " + topic + " has 2 partitions, fewer than demo.kafka.partitions (4)")
                .contains("demo.kafka.partitions=2");
        awaitNoThreadNamed("notes-board-few", "kafka-send-few", "kafka-consume-few");
        // The same topic with the count it has serves.
        try (Replica r = Replica.start("fits", kafka.bootstrap(), topic, dir.resolve("fits"),
                Map.of("demo.kafka.partitions", "2"))) {
            assertThat(r.post("/api/boards", "{\"name\":\"fits\"}").status()).isEqualTo(201);
        }
    }

    /**
     * A snapshot that covers more of the topic than it holds (the topic was deleted and created
     * again while the replica was down) stops the start: the replica served the snapshot's boards,
     * which no record held, took writes to them that every other replica refused, and diverged.
     */
    @Test
    void aSnapshotAheadOfTheTopicStopsTheStart(CapturedOutput output) throws Exception {
        String topic = TestKafka.freshTopic();
        Path data = dir.resolve("ahead");
        Map<String, String> settings = Map.of("demo.kafka.partitions", "2", "demo.kafka.snapshot-interval", "1s");
        try (Replica r = Replica.start("ahead", kafka.bootstrap(), topic, data, settings)) {
            String board = r.post("/api/boards", "{\"name\":\"gone\"}").json().path("id").asString();
            assertThat(r.post("/api/boards/" + board + "/notes", "{\"text\":\"gone too\"}").status()).isEqualTo(201);
            // A snapshot is written when something changed: one completes after the writes, then
            // another after one more write, which began after the writes (they run one at a time).
            for (int round = 0; round < 2; round++) {
                long taken = r.cluster().path("snapshots").asLong();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (r.cluster().path("snapshots").asLong() < taken + 1) {
                    assertThat(System.nanoTime() - deadline).as("a snapshot after the writes").isNegative();
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // polling pace
                }
                if (round == 0) {
                    assertThat(r.post("/api/boards/" + board + "/notes", "{\"text\":\"one more\"}").status()).isEqualTo(201);
                }
            }
        }
        assertThat(data.resolve("boards.snapshot")).exists();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrap()))) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
                assertThat(System.nanoTime() - deadline).as("the topic is deleted").isNegative();
                java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // polling pace
            }
            // Created again, empty (deletion completes in the background: retry while it does).
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
                    break;
                } catch (java.util.concurrent.ExecutionException stillDeleting) {
                    assertThat(System.nanoTime() - deadline).as("the topic is created again: %s", stillDeleting).isNegative();
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200)); // polling pace
                }
            }
        }
        Throwable refused = catchThrowable(() -> Replica.start("ahead", kafka.bootstrap(), topic, data, settings).close());
        assertThat(refused).isNotNull();
        assertThat(output.getAll())
                .contains("APPLICATION FAILED TO START")
                .contains("snapshot covers partition")
                .contains("Remove boards.snapshot");
        awaitNoThreadNamed("notes-board-ahead", "kafka-send-ahead", "kafka-consume-ahead");
    }

    /** The failed start left none of the log's threads behind (its producer's, its send and consume loops). */
    private static void awaitNoThreadNamed(String... parts) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<String> left;
        do {
            left = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                    .filter(n -> java.util.Arrays.stream(parts).anyMatch(n::contains)).toList();
            if (left.isEmpty()) {
                return;
            }
            Thread.sleep(50); // polling pace
        } while (System.nanoTime() < deadline);
        assertThat(left).as("threads of the failed start's change log").isEmpty();
    }

    @Test
    void aSecondReplicaOnTheSameDataDirectoryIsRefused(CapturedOutput output) throws Exception {
        String topic = TestKafka.freshTopic();
        Path shared = dir.resolve("shared");
        try (Replica a = Replica.start("a", kafka.bootstrap(), topic, shared, Map.of())) {
            assertThat(a.post("/api/boards", "{\"name\":\"first\"}").status()).isEqualTo(201);
            Throwable refused = catchThrowable(() -> Replica.start("b", kafka.bootstrap(), topic, shared, Map.of()).close());
            assertThat(refused).isNotNull();
            assertThat(output.getAll())
                    .contains("APPLICATION FAILED TO START")
                    .contains("the snapshot " + shared.resolve("boards.snapshot").toAbsolutePath() + " is in use by this process")
                    .contains("Give each replica its own data directory");
            assertThat(a.get("/api/boards").status()).as("the first replica serves on").isEqualTo(200);
        }
        // Once the first has stopped, the directory is free.
        try (Replica again = Replica.start("b", kafka.bootstrap(), topic, shared, Map.of())) {
            assertThat(again.get("/api/boards").json().size()).isEqualTo(1);
        }
        assertThat(Files.exists(shared.resolve("boards.snapshot.lock"))).isTrue();
    }
}
