package dev.corobridge.demo.changelog;

/**
 * A {@link ChangeLog}'s counters at one moment.
 *
 * @param changes      changes made durable since start
 * @param replayed     changes replayed at start
 * @param commits      durable writes since start, each covering one or more changes (the journal:
 *                     one {@code fdatasync} each)
 * @param bytes        bytes the log holds (the journal: its file's size)
 * @param largestBatch most changes one commit carried
 * @param queued       changes waiting for the next commit
 * @param broken       whether the log failed and refuses changes since
 */
public record ChangeLogMetrics(long changes, long replayed, long commits, long bytes, long largestBatch, int queued,
                               boolean broken) {

    /** Commits per change (0 when no change yet): group commit drives it below 1. */
    public double commitsPerChange() {
        return changes == 0 ? 0.0 : (double) commits / changes;
    }
}
