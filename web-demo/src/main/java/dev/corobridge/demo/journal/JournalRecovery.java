package dev.corobridge.demo.journal;

/** What {@link Journal#open} does with a corrupted journal (see {@link JournalScan.Verdict#CORRUPT}). */
public enum JournalRecovery {
    /** Refuse to open it ({@link JournalCorruptedException}) and leave the file untouched: the default. */
    REFUSE,
    /**
     * Keep the damaged file beside the journal ({@code journal.log.damaged-<time>}), write a new
     * journal holding every intact record, and report what was dropped ({@link JournalRepairReport}).
     * A clean journal or a torn tail is handled as without it.
     */
    REPAIR
}
