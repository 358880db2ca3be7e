package dev.corobridge.demo.journal;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The journal: DOWN once a write or {@code fdatasync} failed (the service refuses changes from then
 * on), UP otherwise, with its counters as details. Thread-safe (reads atomic counters).
 */
public final class JournalHealthIndicator extends AbstractHealthIndicator {

    private final Journal journal;

    public JournalHealthIndicator(Journal journal) {
        super("Journal health check failed");
        this.journal = journal;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        JournalMetrics m = journal.metrics();
        builder.withDetail("path", journal.path().toAbsolutePath().toString())
                .withDetail("changes", m.changes())
                .withDetail("fsyncs", m.fsyncs())
                .withDetail("bytes", m.bytes())
                .withDetail("tornBytesCutAtStart", journal.tornBytes());
        if (m.broken()) {
            builder.down().withDetail("reason", "a write or fdatasync failed; restart to replay the valid journal");
        } else {
            builder.up();
        }
    }
}
