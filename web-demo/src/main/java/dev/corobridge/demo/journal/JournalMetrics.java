package dev.corobridge.demo.journal;

/**
 * The journal's counters at one moment.
 *
 * @param changes      changes made durable since start
 * @param fsyncs       commits (each one {@code fdatasync}) since start
 * @param bytes        size of the journal file
 * @param largestBatch most changes one commit carried
 * @param queued       changes waiting for the next commit
 * @param broken       whether a write or fdatasync failed
 */
public record JournalMetrics(long changes, long fsyncs, long bytes, long largestBatch, int queued, boolean broken) {

    /** fsyncs per change (0 when no change yet): group commit drives it below 1. */
    public double fsyncsPerChange() {
        return changes == 0 ? 0.0 : (double) fsyncs / changes;
    }
}
