package dev.corobridge.kafkabroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real brokers: one broker round-trips acks=all records; a topic takes ordered writes from several
 * requests in flight the moment it is created; three survive the SIGKILL of the leader
 * with acks=all and min.insync.replicas=2 and take the killed broker back; close() and the shutdown
 * hook leave no broker process, and a broker ends by itself when the JVM that started it dies
 * without running its hook; a broker that cannot start fails the start with its log.
 */
class KafkaClusterTest {

    /** Fresh topics written at once by {@link #aTopicTakesOrderedWritesTheMomentItIsCreated}. */
    private static final int TOPICS_WRITTEN_AT_ONCE = 20;

    @TempDir
    Path dir;

    @Test
    void oneBrokerProducesAndConsumesWithAcksAll() throws Exception {
        List<ProcessHandle> started;
        try (KafkaCluster kafka = KafkaCluster.start(1, dir)) {
            started = List.of(kafka.process(0));
            kafka.createTopic("one", 2, 1, Map.of());
            try (KafkaProducer<String, String> producer = producer(kafka)) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>("one", "k" + i, "v" + i)).get(60, TimeUnit.SECONDS);
                }
            }
            assertThat(consumeAll(kafka, "one", 10)).containsExactlyInAnyOrderElementsOf(values(0, 10));
        }
        assertNoBrokerLeft(started);
    }

    /**
     * A topic takes writes the moment {@code createTopic} returns. A partition whose leader is in
     * the metadata but not yet serving turns an idempotent producer's first request away
     * (NOT_LEADER_OR_FOLLOWER); the broker (up to Kafka 4.4) then appends the producer's next
     * request to the empty partition and refuses every retry of the first as out of order until
     * it expires, its records lost. Each topic here is written at once, several requests in flight
     * per partition, so a topic returned too early shows as a send that fails.
     */
    @Test
    void aTopicTakesOrderedWritesTheMomentItIsCreated() throws Exception {
        try (KafkaCluster kafka = KafkaCluster.start(1, dir)) {
            Properties p = producerConfig(kafka);
            p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
            p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
            p.put(ProducerConfig.BATCH_SIZE_CONFIG, "256"); // many small requests, several in flight
            p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
            p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
            for (int t = 0; t < TOPICS_WRITTEN_AT_ONCE; t++) {
                String topic = "fresh-" + t;
                kafka.createTopic(topic, 4, 1, Map.of());
                try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
                    List<Future<RecordMetadata>> sent = new ArrayList<>();
                    for (int i = 0; i < 200; i++) {
                        sent.add(producer.send(new ProducerRecord<>(topic, i % 4, "k", "v" + i)));
                    }
                    for (int i = 0; i < sent.size(); i++) {
                        RecordMetadata m = sent.get(i).get(60, TimeUnit.SECONDS);
                        assertThat(m.offset()).as("%s record %d", topic, i).isEqualTo(i / 4);
                    }
                }
            }
        }
    }

    @Test
    void threeBrokersKeepAcceptingAcksAllWritesWhenTheLeaderIsKilled() throws Exception {
        List<ProcessHandle> started = new ArrayList<>();
        try (KafkaCluster kafka = KafkaCluster.start(3, dir)) {
            for (int i = 0; i < 3; i++) {
                started.add(kafka.process(i));
            }
            kafka.createTopic("three", 1, 3, Map.of());
            assertThat(describe(kafka, "three").replicas()).hasSize(3);
            try (KafkaProducer<String, String> producer = producer(kafka)) {
                producer.send(new ProducerRecord<>("three", "k", "v0")).get(60, TimeUnit.SECONDS);

                int leader = describe(kafka, "three").leader().id();
                kafka.kill(leader);
                assertThat(kafka.isRunning(leader)).isFalse();
                // acks=all with min.insync.replicas=2: acknowledged by the two survivors.
                for (int i = 1; i < 10; i++) {
                    RecordMetadata m = producer.send(new ProducerRecord<>("three", "k", "v" + i)).get(60, TimeUnit.SECONDS);
                    assertThat(m.offset()).isEqualTo(i);
                }
                assertThat(describe(kafka, "three").leader().id()).isNotEqualTo(leader);

                kafka.restart(leader);
                started.add(kafka.process(leader));
                kafka.awaitFullyReplicated("three", Duration.ofSeconds(60));
                producer.send(new ProducerRecord<>("three", "k", "v10")).get(60, TimeUnit.SECONDS);
            }
            assertThat(consumeAll(kafka, "three", 11)).containsExactlyElementsOf(values(0, 11));
        }
        assertNoBrokerLeft(started);
    }

    @Test
    void aBrokerThatCannotStartFailsTheStartWithItsLog() {
        assertThatThrownBy(() -> KafkaCluster.builder().brokers(1).dir(dir)
                .brokerProperty("num.io.threads", "0").start())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("broker 0")
                .hasMessageContaining("num.io.threads");
        assertThat(ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains(KafkaCluster.OWNER_PROPERTY))).isEmpty();
    }

    @Test
    void theShutdownHookKillsTheBrokersOfAJvmThatExitsWithoutClosing() throws Exception {
        long brokerPid = brokerPidOfChild(ExitWithoutClosing.class);
        // The hook has sent SIGKILL before the JVM exited; the broker's exit is then only as late as the kernel.
        ProcessHandle.of(brokerPid).ifPresent(p -> p.onExit().orTimeout(30, TimeUnit.SECONDS).join());
        assertThat(ProcessHandle.of(brokerPid).map(ProcessHandle::isAlive)).isNotEqualTo(java.util.Optional.of(true));
    }

    @Test
    void aBrokerEndsWhenTheJvmThatStartedItDiesWithoutItsShutdownHook() throws Exception {
        // A crash (a native abort, SIGKILL, the OOM killer) runs no shutdown hook: the broker must
        // notice by itself that the JVM that owns it is gone.
        long brokerPid = brokerPidOfChild(Halting.class);
        try {
            ProcessHandle.of(brokerPid).ifPresent(p -> p.onExit().completeOnTimeout(p, 30, TimeUnit.SECONDS).join());
            assertThat(ProcessHandle.of(brokerPid).map(ProcessHandle::isAlive))
                    .as("broker %d, 30 s after its owner died", brokerPid)
                    .isNotEqualTo(java.util.Optional.of(true));
        } finally {
            ProcessHandle.of(brokerPid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /**
     * Runs {@code main} in a child JVM on this class path with {@link #dir}, waits for it to exit
     * (successfully) and returns the broker pid it printed.
     */
    private long brokerPidOfChild(Class<?> main) throws Exception {
        List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(),
                "-cp", System.getProperty("java.class.path"), main.getName(), dir.toString());
        Process jvm = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            String pidLine = null;
            StringBuilder all = new StringBuilder();
            while ((line = out.readLine()) != null) {
                all.append(line).append('\n');
                if (line.startsWith("broker pid ")) {
                    pidLine = line;
                }
            }
            assertThat(jvm.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(pidLine).as(all.toString()).isNotNull();
            assertThat(jvm.exitValue()).as(all.toString()).isEqualTo(main == Halting.class ? Halting.STATUS : 0);
            return Long.parseLong(pidLine.substring("broker pid ".length()));
        }
    }

    /** The child JVM of the shutdown hook test: starts a broker, says its pid, exits without close(). */
    public static final class ExitWithoutClosing {
        public static void main(String[] args) {
            KafkaCluster kafka = KafkaCluster.start(1, Path.of(args[0]));
            System.out.println("broker pid " + kafka.process(0).pid());
            System.out.flush();
            System.exit(0);
        }
    }

    /** The child JVM of the crash test: starts a broker, says its pid, halts (no shutdown hook runs). */
    public static final class Halting {
        static final int STATUS = 134;

        public static void main(String[] args) {
            KafkaCluster kafka = KafkaCluster.start(1, Path.of(args[0]));
            System.out.println("broker pid " + kafka.process(0).pid());
            System.out.flush();
            Runtime.getRuntime().halt(STATUS);
        }
    }

    private static void assertNoBrokerLeft(List<ProcessHandle> started) {
        assertThat(started).allSatisfy(p -> assertThat(p.isAlive()).as("pid " + p.pid()).isFalse());
        assertThat(ProcessHandle.current().descendants()
                .filter(p -> p.info().commandLine().orElse("").contains(KafkaCluster.OWNER_PROPERTY))).isEmpty();
    }

    private static KafkaProducer<String, String> producer(KafkaCluster kafka) {
        return new KafkaProducer<>(producerConfig(kafka));
    }

    /** An idempotent acks=all producer's settings for {@code kafka}, string keys and values. */
    private static Properties producerConfig(KafkaCluster kafka) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        return p;
    }

    /** Reads the topic from the beginning (no group) until {@code count} records arrived (bounded). */
    private static List<String> consumeAll(KafkaCluster kafka, String topic, int count) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(i -> new TopicPartition(topic, i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < count && System.nanoTime() - deadline < 0) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    values.add(r.value());
                }
            }
        }
        return values;
    }

    private static TopicPartitionInfo describe(KafkaCluster kafka, String topic) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (Admin admin = Admin.create(p)) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(topic).partitions().getFirst();
        }
    }

    private static List<String> values(int from, int to) {
        List<String> v = new ArrayList<>();
        for (int i = from; i < to; i++) {
            v.add("v" + i);
        }
        return v;
    }
}
