package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.corobridge.demo.snapshot.SnapshotInUseException;

/**
 * Turns a cluster-mode start refused because another replica holds the data directory's snapshot
 * into Spring Boot's "APPLICATION FAILED TO START" report: which file, which process holds it, and
 * what to do. Registered in {@code META-INF/spring.factories}. Stateless, thread-safe.
 */
public final class SnapshotInUseFailureAnalyzer extends AbstractFailureAnalyzer<SnapshotInUseException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, SnapshotInUseException cause) {
        String holder = cause.holderPid().isPresent() ? "the process " + cause.holderPid().getAsLong() : "the other process";
        return new FailureAnalysis("The replica's data directory cannot be used: " + cause.getMessage() + ".",
                "Give each replica its own data directory (demo.data-dir, environment: DEMO_DATA_DIR), or stop "
                        + holder + " first. Nothing in the directory was read or changed.",
                cause);
    }
}
