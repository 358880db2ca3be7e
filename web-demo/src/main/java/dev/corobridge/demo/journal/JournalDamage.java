package dev.corobridge.demo.journal;

/**
 * One damaged region of a journal file: bytes between intact records that are not an intact record
 * themselves, or (with {@code length} 0) a break in the record numbers. Record numbers count from 0
 * in file order; format 1 has none, so there they are positions among the intact records, and what
 * a region held is known only up to its first record. Immutable.
 *
 * @param offset           where the region starts in the file
 * @param length           its bytes ({@code 0}: a break in the numbering, no byte damaged)
 * @param reason           what is wrong at {@code offset}
 * @param lastIntactBefore number of the last intact record before the region, {@code -1} if none
 * @param firstIntactAfter number of the first intact record after it, {@code -1} if the region runs
 *                         to the end of the file (or the file is format 1)
 * @param numbered         whether the file carries record numbers (format 2)
 */
public record JournalDamage(long offset, long length, String reason, long lastIntactBefore, long firstIntactAfter,
                            boolean numbered) {

    /** Number of the first record the region took (the one after the last intact record before it). */
    public long firstLostRecord() {
        return lastIntactBefore + 1;
    }

    /**
     * How many whole records the region took, when the numbers say ({@code -1} when they do not:
     * the region runs to the end of the file, or the file is format 1).
     */
    public long lostRecords() {
        return numbered && firstIntactAfter >= 0 ? Math.max(0, firstIntactAfter - firstLostRecord()) : -1;
    }

    /** Which records the region took, in words. */
    public String lostRecordsText() {
        long first = firstLostRecord();
        if (!numbered) {
            return "record #" + first + (firstIntactAfter >= 0 ? " and perhaps more (format 1 has no record numbers)" : " on");
        }
        if (firstIntactAfter < 0) {
            return "records from #" + first + " on";
        }
        long n = lostRecords();
        if (n == 0) {
            return firstIntactAfter < first ? "no record (record #" + firstIntactAfter + " follows #" + lastIntactBefore + ")"
                    : "no whole record";
        }
        return n == 1 ? "record #" + first : "records #" + first + "..#" + (firstIntactAfter - 1) + " (" + n + " records)";
    }

    /** One line for logs and errors: where, how many bytes, why, and which records. */
    @Override
    public String toString() {
        return "offset " + offset + (length == 0 ? "" : " (" + length + " bytes, to " + (offset + length) + ")") + ": "
                + lostRecordsText() + ": " + reason;
    }
}
