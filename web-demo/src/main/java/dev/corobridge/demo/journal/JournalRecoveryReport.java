package dev.corobridge.demo.journal;

import java.nio.file.Path;

/**
 * What opening the journal did to its file ({@link Journal#open}): a torn tail cut (how many bytes,
 * and where they were kept), a repair of a corrupted file, or nothing. Immutable.
 *
 * @param tornBytes   bytes of a torn tail cut (0 when none)
 * @param tornTailCopy where those bytes were kept, or {@code null} when none was cut
 * @param repair      what a repair did, or {@code null} when none was needed (or asked for)
 */
public record JournalRecoveryReport(long tornBytes, Path tornTailCopy, JournalRepairReport repair) {

    /** Nothing was cut or repaired. */
    static final JournalRecoveryReport NOTHING = new JournalRecoveryReport(0, null, null);
}
