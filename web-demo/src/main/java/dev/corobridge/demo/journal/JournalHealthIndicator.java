package dev.corobridge.demo.journal;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The journal: DOWN once a write or {@code fdatasync} failed (the service refuses changes from then
 * on), UP otherwise, with its counters as details, and what start-up cut ({@code tornTailKeptIn})
 * or repaired ({@code repairedAtStart}: the damaged copy, what was kept and dropped). A corrupted
 * journal that was not repaired never gets here: the service does not start. Thread-safe (reads
 * atomic counters and start-up values).
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
        if (journal.tornTailCopy() != null) {
            builder.withDetail("tornTailKeptIn", journal.tornTailCopy().toAbsolutePath().toString());
        }
        JournalRepairReport repair = journal.repairReport();
        if (repair != null) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("damagedCopy", repair.damagedCopy().toAbsolutePath().toString());
            r.put("keptRecords", repair.keptRecords());
            r.put("droppedBytes", repair.droppedBytes());
            r.put("droppedRecords", repair.droppedRecords());
            r.put("dropped", repair.dropped().stream().limit(100).map(JournalDamage::toString).toList());
            builder.withDetail("repairedAtStart", r);
        }
        if (m.broken()) {
            builder.down().withDetail("reason", "a write or fdatasync failed; restart to replay the valid journal");
        } else {
            builder.up();
        }
    }
}
