package dev.corobridge.demo.journal;

import java.util.ArrayList;
import java.util.List;

import dev.corobridge.demo.board.Change;

/**
 * What a journal file holds: its intact records, its damaged regions, and the verdict on the
 * damage; {@link #of} reads a whole file's bytes. Immutable; {@link #of} is a pure function.
 *
 * <h2>Reading</h2>
 * Records are read one after the other ({@link JournalCodec#recordAt}). At a byte that is not an
 * intact record the scan <b>resynchronises</b>: it looks for the next offset holding an intact
 * record (format 2: only offsets holding the record marker are tried; format 1: every offset, with
 * a cheap test before the checksum), records the bytes in between as one {@link JournalDamage},
 * and reads on from there. So damage in the middle never hides the records after it, whatever a
 * flipped bit did to a length field.
 *
 * <h2>Verdict</h2>
 * A commit writes its records with one write and then calls {@code fdatasync}; the next commit is
 * written only after that returned. So a crash can damage only the <b>last commit</b>, and only
 * records of an unfinished commit were never acknowledged. The verdict:
 * <ul>
 *   <li>{@link Verdict#CLEAN}: no damage.</li>
 *   <li>{@link Verdict#TORN_TAIL}: the damage is confined to the last, unfinished write. In format 2:
 *       either nothing intact follows the first damage, or everything intact after it belongs to the
 *       commit the damage lies in, and that commit has no last record (it never finished). In
 *       format 1, which has no commit boundaries, only the first case counts. The journal may cut
 *       the file at the damage: nothing acknowledged is lost (a single fault assumed).</li>
 *   <li>{@link Verdict#CORRUPT}: anything else: an intact record of a later or of a completed
 *       commit follows the damage, the record numbers break (an intact record that repeats a
 *       number the file holds already is damage of its bytes, not a record to replay), or the file
 *       header is damaged while records follow. Bytes that were durable have changed; cutting would drop acknowledged
 *       changes, so the journal refuses to start unless asked to repair.</li>
 * </ul>
 * A damaged byte in the journal's last record is a torn tail by this rule: it cannot be told from a
 * write that a crash cut short. Anywhere before, it is corruption, since an intact record of a
 * completed commit (at the latest, the last record) follows it.
 */
public record JournalScan(int format, int size, List<Entry> records, List<JournalDamage> damages, Verdict verdict) {

    /** The verdict on a file's damage. */
    public enum Verdict {
        /** Every byte is an intact record (or the file is empty). */
        CLEAN,
        /** Damage confined to the last, unfinished write: cut at the first damage. */
        TORN_TAIL,
        /** Damage followed by records that were durable: refuse, or repair on request. */
        CORRUPT
    }

    /**
     * One intact record.
     *
     * @param offset      where it starts
     * @param size        its bytes (header and payload)
     * @param number      its record number (format 1: its position among the intact records)
     * @param commitStart number of the first record of its commit (format 1: its own number)
     * @param last        whether it ends its commit (format 1: always)
     */
    public record Entry(long offset, int size, long number, long commitStart, boolean last, Change change) {
    }

    public JournalScan {
        records = List.copyOf(records);
        damages = List.copyOf(damages);
    }

    /**
     * Scans the first {@code size} bytes of {@code data}.
     *
     * @throws UnsupportedJournalFormatException if the file header names a format this code does not read
     */
    public static JournalScan of(byte[] data, int size) throws UnsupportedJournalFormatException {
        if (size == 0) {
            return new JournalScan(JournalCodec.FORMAT, 0, List.of(), List.of(), Verdict.CLEAN);
        }
        if (JournalCodec.hasFileHeader(data, size)) {
            int format = JournalCodec.fileFormat(data);
            if (format != JournalCodec.FORMAT) {
                throw new UnsupportedJournalFormatException(format, JournalCodec.FORMAT);
            }
            return new Reader(data, size, true).read(JournalCodec.FILE_HEADER);
        }
        if (JournalCodec.isFileHeaderPrefix(data, size)) {
            // A crash while the file was created: a header cut short, nothing else.
            JournalDamage d = new JournalDamage(0, size, "incomplete file header", -1, -1, true);
            return new JournalScan(JournalCodec.FORMAT, size, List.of(), List.of(d), Verdict.TORN_TAIL);
        }
        Reader v2 = new Reader(data, size, true);
        int first = v2.nextIntact(0);
        if (first >= 0) {
            // Format-2 records without an intact file header: the header is damaged.
            return v2.read(first, new JournalDamage(0, first, "file header damaged", -1, v2.numberAt(first), true));
        }
        return new Reader(data, size, false).read(0);
    }

    /** The records the journal keeps: all intact ones, except those a torn tail cut takes. */
    public List<Entry> kept() {
        if (verdict != Verdict.TORN_TAIL) {
            return records;
        }
        long cut = damages.getFirst().offset();
        return records.stream().filter(r -> r.offset() < cut).toList();
    }

    /** Where a torn tail starts (the file keeps the bytes before it); the size otherwise. */
    public long tailOffset() {
        return verdict == Verdict.TORN_TAIL ? damages.getFirst().offset() : size;
    }

    /** Intact records after the first damage (0 without damage). */
    public long intactAfterFirstDamage() {
        if (damages.isEmpty()) {
            return 0;
        }
        long at = damages.getFirst().offset();
        return records.stream().filter(r -> r.offset() >= at).count();
    }

    /** Reads records and damage in one format. */
    private static final class Reader {

        private final byte[] data;
        private final int size;
        private final boolean v2;
        private final List<Entry> records = new ArrayList<>();
        private final List<JournalDamage> damages = new ArrayList<>();
        /** Intact records read whose number an earlier record had ({@link #repeat}). */
        private int repeats;

        Reader(byte[] data, int size, boolean v2) {
            this.data = data;
            this.size = size;
            this.v2 = v2;
        }

        JournalScan read(int from, JournalDamage... before) {
            damages.addAll(List.of(before));
            long previous = before.length > 0 ? before[0].lastIntactBefore() : -1;
            int at = from;
            while (at < size) {
                JournalCodec.Read r = readAt(at);
                if (r instanceof JournalCodec.Read.Record rec) {
                    long number = v2 ? rec.number() : records.size();
                    if (v2 && number <= previous) {
                        repeat(at, rec.size(), number, previous);
                        at += rec.size();
                        continue;
                    }
                    if (v2 && number != previous + 1 && (damages.isEmpty() || damages.getLast().offset()
                            + damages.getLast().length() != at)) {
                        damages.add(new JournalDamage(at, 0, "record #" + number + " where #" + (previous + 1)
                                + " was expected", previous, number, true));
                    }
                    records.add(new Entry(at, rec.size(), number, v2 ? number - rec.commitIndex() : number,
                            rec.last(), rec.change()));
                    previous = number;
                    at += rec.size();
                } else {
                    int next = nextIntact(at + 1);
                    int end = next < 0 ? size : next;
                    long after = next < 0 || !v2 ? -1 : numberAt(next);
                    damages.add(new JournalDamage(at, end - at, ((JournalCodec.Read.Bad) r).reason(), previous, after, v2));
                    at = end;
                }
            }
            return new JournalScan(v2 ? JournalCodec.FORMAT : 1, size, records, damages, verdict());
        }

        /**
         * An intact record whose number the file holds already ({@code highest} at most): its
         * bytes are damage, merged with a run of such records right before it, and it is not among
         * the records (replayed, it would apply its change a second time). The numbers go on from
         * {@code highest}, so the region took no record.
         */
        private void repeat(int at, int length, long number, long highest) {
            JournalDamage last = damages.isEmpty() ? null : damages.getLast();
            if (last != null && repeats > 0 && last.offset() + last.length() == at) {
                damages.set(damages.size() - 1, new JournalDamage(last.offset(), last.length() + length, last.reason(),
                        last.lastIntactBefore(), last.firstIntactAfter(), true));
            } else {
                damages.add(new JournalDamage(at, length, "record #" + number + " repeats a number the journal holds "
                        + "already (up to #" + highest + ")", highest, highest + 1, true));
            }
            repeats++;
        }

        private JournalCodec.Read readAt(int at) {
            return v2 ? JournalCodec.recordAt(data, at, size) : JournalCodec.legacyRecordAt(data, at, size);
        }

        /** The first offset at or after {@code from} holding an intact record, or -1. */
        int nextIntact(int from) {
            byte first = JournalCodec.RECORD_MARKER[0];
            for (int p = from; p < size; p++) {
                if (v2 && data[p] != first) {
                    continue;
                }
                if (readAt(p) instanceof JournalCodec.Read.Record) {
                    return p;
                }
            }
            return -1;
        }

        long numberAt(int at) {
            return ((JournalCodec.Read.Record) readAt(at)).number();
        }

        private Verdict verdict() {
            if (damages.isEmpty()) {
                return Verdict.CLEAN;
            }
            if (repeats > 0) {
                return Verdict.CORRUPT; // a whole record written twice: no crash does that, wherever it lies
            }
            JournalDamage first = damages.getFirst();
            List<Entry> after = records.stream().filter(r -> r.offset() >= first.offset()).toList();
            if (after.isEmpty()) {
                return Verdict.TORN_TAIL;
            }
            if (!v2 || first.length() == 0 || first.offset() == 0) {
                return Verdict.CORRUPT; // records follow; or a numbering break; or a damaged file header
            }
            long commit = after.getFirst().commitStart();
            for (Entry r : after) {
                if (r.commitStart() != commit || r.last()) {
                    return Verdict.CORRUPT; // a later commit, or a completed one, follows the damage
                }
            }
            if (commit > first.firstLostRecord()) {
                return Verdict.CORRUPT; // the damage took a record of an earlier, completed commit
            }
            Entry before = records.stream().filter(r -> r.offset() < first.offset()).reduce((a, b) -> b).orElse(null);
            if (before != null && before.number() >= commit && before.last()) {
                return Verdict.CORRUPT; // the commit ended before the damage, yet records of it follow
            }
            for (JournalDamage d : damages) {
                if (d.length() == 0) {
                    return Verdict.CORRUPT; // a numbering break among the unfinished commit's records
                }
            }
            return Verdict.TORN_TAIL;
        }
    }
}
