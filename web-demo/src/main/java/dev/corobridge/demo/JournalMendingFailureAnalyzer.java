package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import dev.corobridge.demo.journal.JournalMendingException;

/**
 * Turns a start that failed while mending the journal (most often on a full disk: a torn tail could
 * not be kept aside) into Spring Boot's "APPLICATION FAILED TO START" report instead of a stack
 * trace: which step failed and why, that the journal was left as it was, and what to do. Registered
 * in {@code META-INF/spring.factories}. Stateless, thread-safe.
 */
public final class JournalMendingFailureAnalyzer extends AbstractFailureAnalyzer<JournalMendingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, JournalMendingException cause) {
        return new FailureAnalysis("The journal could not be opened: " + cause.getMessage(),
                "Remove the cause, then start again: nothing was lost, and the start mends the journal then. If the "
                        + "reason is \"No space left on device\", free space on the file system of "
                        + cause.path().toAbsolutePath().getParent() + " (df -h shows it). See web-demo/API.md, \"Durability\".",
                cause);
    }
}
