package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.corobridge.demo.changelog.kafka.SnapshotAheadOfLogException;

/**
 * Turns a cluster-mode start refused because the replica's snapshot is ahead of the command topic
 * into Spring Boot's "APPLICATION FAILED TO START" report: what was found, and the two ways out.
 * Registered in {@code META-INF/spring.factories}. Stateless, thread-safe.
 */
public final class SnapshotAheadOfLogFailureAnalyzer extends AbstractFailureAnalyzer<SnapshotAheadOfLogException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SnapshotAheadOfLogException cause) {
        return new FailureAnalysis("The Kafka change log cannot be used: " + cause.getMessage() + ".",
                "Remove boards.snapshot from this replica's data directory (demo.data-dir) to rebuild its boards "
                        + "from topic " + cause.topic() + ", or point demo.kafka.bootstrap-servers and demo.kafka.topic "
                        + "at the log the snapshot was taken from. Nothing was read from the topic or written to it.",
                cause);
    }
}
