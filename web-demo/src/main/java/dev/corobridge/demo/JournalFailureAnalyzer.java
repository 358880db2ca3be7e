package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.corobridge.demo.journal.JournalCorruptedException;

/**
 * Turns a start refused for a corrupted journal into Spring Boot's "APPLICATION FAILED TO START"
 * report: what is damaged where (offset, record, how many intact records follow), that the file
 * was left untouched, and how to repair it. Registered in {@code META-INF/spring.factories}.
 * Stateless, thread-safe.
 */
public final class JournalFailureAnalyzer extends AbstractFailureAnalyzer<JournalCorruptedException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, JournalCorruptedException cause) {
        String file = cause.path().getFileName().toString();
        return new FailureAnalysis("The journal cannot be replayed: " + cause.getMessage(),
                "Keep a copy of the data directory, then start once with demo.journal.repair=true (environment: "
                        + "DEMO_JOURNAL_REPAIR=true). The repair keeps the damaged file as " + file
                        + ".damaged-<time>, writes a new " + file + " holding every intact record, and logs each "
                        + "damaged region it dropped (offsets, bytes, record numbers). Turn the setting off again "
                        + "afterwards. See web-demo/API.md, \"Durability\".",
                cause);
    }
}
