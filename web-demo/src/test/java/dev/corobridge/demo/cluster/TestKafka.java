package dev.corobridge.demo.cluster;

import java.util.UUID;

import dev.corobridge.demo.TestData;
import dev.corobridge.kafkabroker.KafkaCluster;

/**
 * The broker of a cluster test: one real KRaft broker in a child JVM (corobridge-kafka-broker),
 * with its data in a fresh directory under target/test-data ({@link TestData}); closing it kills the broker.
 */
final class TestKafka implements AutoCloseable {

    final KafkaCluster cluster;

    private TestKafka(KafkaCluster cluster) {
        this.cluster = cluster;
    }

    static TestKafka start() {
        return start(1);
    }

    /** {@code brokers} brokers: 1, or 3 (a three-voter quorum that survives the loss of one). */
    static TestKafka start(int brokers) {
        return new TestKafka(KafkaCluster.start(brokers, TestData.directory("web-demo-kafka")));
    }

    /** A topic no other test uses (the service creates it). */
    static String freshTopic() {
        return "notes-" + UUID.randomUUID();
    }

    String bootstrap() {
        return cluster.bootstrapServers();
    }

    @Override
    public void close() {
        cluster.close();
    }
}
