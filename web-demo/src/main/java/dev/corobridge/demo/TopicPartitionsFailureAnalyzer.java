package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.corobridge.demo.changelog.kafka.TopicPartitionsException;

/**
 * Turns a cluster-mode start refused because the command topic has fewer partitions than
 * {@code demo.kafka.partitions} into Spring Boot's "APPLICATION FAILED TO START" report: the topic,
 * both counts, and the two ways out. Registered in {@code META-INF/spring.factories}. Stateless,
 * thread-safe.
 */
public final class TopicPartitionsFailureAnalyzer extends AbstractFailureAnalyzer<TopicPartitionsException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, TopicPartitionsException cause) {
        return new FailureAnalysis("The Kafka change log cannot be used: " + cause.getMessage() + ".",
                "Start every replica with demo.kafka.partitions=" + cause.partitions() + " (environment: "
                        + "DEMO_KAFKA_PARTITIONS), the topic's count, or add partitions to topic " + cause.topic()
                        + " until it has " + cause.configured() + " (kafka-topics.sh --alter --partitions "
                        + cause.configured() + "). Nothing was read from the topic or written to it.",
                cause);
    }
}
