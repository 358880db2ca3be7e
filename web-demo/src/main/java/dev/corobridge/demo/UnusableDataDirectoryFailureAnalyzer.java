package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a start refused for an unusable {@code demo.data-dir} into Spring Boot's "APPLICATION
 * FAILED TO START" report: the path, what is wrong with it, and what to set. Registered in
 * {@code META-INF/spring.factories}. Stateless, thread-safe.
 */
public final class UnusableDataDirectoryFailureAnalyzer extends AbstractFailureAnalyzer<UnusableDataDirectoryException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnusableDataDirectoryException cause) {
        return new FailureAnalysis("The data directory cannot be used: " + cause.getMessage() + ".",
                "Set demo.data-dir (environment: DEMO_DATA_DIR) to a directory the service can create or write, "
                        + "and whose files it may read and write: the journal and its lock file live there (in "
                        + "cluster mode, the replica's snapshot).",
                cause);
    }
}
