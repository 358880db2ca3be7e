package dev.corobridge.demo.journal;

import java.nio.file.Path;
import java.util.List;

/**
 * What a repair ({@link JournalRecovery#REPAIR}) did: the damaged file was kept as
 * {@code damagedCopy}, and a new journal holds the {@code keptRecords} intact records, renumbered
 * from 0 in their old order; {@code dropped} lists each damaged region (offsets and bytes in the
 * damaged copy, and the records it took). Immutable.
 *
 * @param damagedCopy  the damaged file, byte for byte
 * @param keptRecords  intact records written to the new journal
 * @param dropped      the damaged regions, in file order
 */
public record JournalRepairReport(Path damagedCopy, long keptRecords, List<JournalDamage> dropped) {

    public JournalRepairReport {
        dropped = List.copyOf(dropped);
    }

    /** Bytes of the damaged file that were not intact records. */
    public long droppedBytes() {
        return dropped.stream().mapToLong(JournalDamage::length).sum();
    }

    /** Whole records dropped, where the record numbers say ({@code -1} when some region's count is unknown). */
    public long droppedRecords() {
        long n = 0;
        for (JournalDamage d : dropped) {
            if (d.lostRecords() < 0) {
                return -1;
            }
            n += d.lostRecords();
        }
        return n;
    }

    @Override
    public String toString() {
        long records = droppedRecords();
        return "kept " + keptRecords + " intact records; dropped " + dropped.size()
                + (dropped.size() == 1 ? " damaged region (" : " damaged regions (") + droppedBytes() + " bytes, "
                + (records < 0 ? "records: see below" : records + (records == 1 ? " record" : " records"))
                + "); the damaged file is kept as " + damagedCopy;
    }
}
