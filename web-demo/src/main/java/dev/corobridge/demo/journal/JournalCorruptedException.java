package dev.corobridge.demo.journal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The journal is damaged where it is not a torn tail (see {@link JournalScan}): bytes that were
 * durable changed, and intact records follow the damage. Cutting there would drop acknowledged
 * changes, so {@link Journal#open} refuses and leaves the file byte for byte as it was; the message
 * names the offset and the record. Opening with {@link JournalRecovery#REPAIR} keeps every intact
 * record instead and reports what was dropped.
 */
public final class JournalCorruptedException extends IOException {

    private static final int LISTED = 10;

    private final transient Path path;
    private final transient JournalScan scan;

    JournalCorruptedException(Path path, JournalScan scan) {
        super(message(path, scan));
        this.path = path;
        this.scan = scan;
    }

    private static String message(Path path, JournalScan scan) {
        JournalDamage first = scan.damages().getFirst();
        StringBuilder b = new StringBuilder("the journal ").append(path.toAbsolutePath())
                .append(" is damaged at offset ").append(first.offset()).append(" (").append(first.lostRecordsText())
                .append(": ").append(first.reason()).append("), and ").append(scan.intactAfterFirstDamage())
                .append(" intact records follow the damage, so it is not a torn tail; the file was left untouched. ")
                .append(scan.damages().size()).append(scan.damages().size() == 1 ? " damaged region:" : " damaged regions:");
        List<JournalDamage> damages = scan.damages();
        for (int i = 0; i < Math.min(LISTED, damages.size()); i++) {
            b.append("\n  ").append(damages.get(i));
        }
        if (damages.size() > LISTED) {
            b.append("\n  ... and ").append(damages.size() - LISTED).append(" more");
        }
        return b.append("\nA repair keeps every intact record (").append(scan.records().size())
                .append(") in a new journal and keeps the damaged file beside it.").toString();
    }

    /** The journal file. */
    public Path path() {
        return path;
    }

    /** What the scan found. */
    public JournalScan scan() {
        return scan;
    }

    /** The first damaged region. */
    public JournalDamage firstDamage() {
        return scan.damages().getFirst();
    }
}
