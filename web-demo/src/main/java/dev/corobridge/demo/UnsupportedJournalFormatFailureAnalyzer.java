package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.corobridge.demo.journal.UnsupportedJournalFormatException;

/**
 * Turns a start refused for a journal written by a newer version into Spring Boot's "APPLICATION
 * FAILED TO START" report: the file, its format, and the ways on. Registered in
 * {@code META-INF/spring.factories}. Stateless, thread-safe.
 */
public final class UnsupportedJournalFormatFailureAnalyzer extends AbstractFailureAnalyzer<UnsupportedJournalFormatException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnsupportedJournalFormatException cause) {
        return new FailureAnalysis("The journal cannot be read: " + cause.getMessage() + ".",
                "Start the version of the service that wrote it (a newer one): this version cannot read that "
                        + "format and leaves the file as it is. To start this version anyway, give it another "
                        + "demo.data-dir (the boards in that journal are then not loaded here).",
                cause);
    }
}
