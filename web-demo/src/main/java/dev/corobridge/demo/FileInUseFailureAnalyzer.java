package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.corobridge.demo.io.FileInUseException;
import dev.corobridge.demo.journal.JournalInUseException;

/**
 * Turns a start refused because another process holds a file of the data directory (the journal,
 * or in cluster mode the replica's snapshot) into Spring Boot's "APPLICATION FAILED TO START"
 * report: which file, which process holds it, and what to do. Registered in
 * {@code META-INF/spring.factories}. Stateless, thread-safe.
 */
public final class FileInUseFailureAnalyzer extends AbstractFailureAnalyzer<FileInUseException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, FileInUseException cause) {
        String holder = cause.holderPid().isPresent() ? "the process " + cause.holderPid().getAsLong() : "the other process";
        if (cause instanceof JournalInUseException) {
            return new FailureAnalysis("The journal cannot be opened: " + cause.getMessage() + ".",
                    "Give each service its own data directory (demo.data-dir, environment: DEMO_DATA_DIR), or stop "
                            + holder + " first. Several replicas of one board belong to cluster mode (demo.store=kafka), "
                            + "each with its own data directory. Nothing in the journal was read or changed.",
                    cause);
        }
        return new FailureAnalysis("The replica's data directory cannot be used: " + cause.getMessage() + ".",
                "Give each replica its own data directory (demo.data-dir, environment: DEMO_DATA_DIR), or stop "
                        + holder + " first. Nothing in the directory was read or changed.",
                cause);
    }
}
