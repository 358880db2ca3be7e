package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.corobridge.demo.journal.JournalInUseException;

/**
 * Turns a start refused because another service holds the journal into Spring Boot's "APPLICATION
 * FAILED TO START" report: which file, which process holds it, and what to do. Registered in
 * {@code META-INF/spring.factories}. Stateless, thread-safe.
 */
public final class JournalInUseFailureAnalyzer extends AbstractFailureAnalyzer<JournalInUseException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, JournalInUseException cause) {
        String holder = cause.holderPid().isPresent() ? "the process " + cause.holderPid().getAsLong() : "the other process";
        return new FailureAnalysis("The journal cannot be opened: " + cause.getMessage() + ".",
                "Give each service its own data directory (demo.data-dir, environment: DEMO_DATA_DIR), or stop "
                        + holder + " first. Several replicas of one board belong to cluster mode (demo.store=kafka), "
                        + "each with its own data directory. Nothing in the journal was read or changed.",
                cause);
    }
}
