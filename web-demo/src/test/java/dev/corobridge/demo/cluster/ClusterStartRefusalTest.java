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
