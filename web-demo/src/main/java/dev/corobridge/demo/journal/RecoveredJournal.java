package dev.corobridge.demo.journal;

import static dev.corobridge.demo.io.BoundedIo.await;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.corobridge.demo.board.Change;
import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingPool;

/**
 * A journal file as {@link Journal#open} finds and leaves it: read whole through the ring pool,
 * scanned ({@link JournalScan}), and mended as the scan calls for (see {@link Journal#open}: a torn
 * tail cut and kept beside, a corrupted file refused or repaired, a format-1 file rewritten); then
 * the intact records to replay, at their offsets in the file as it now is, and where the next
 * commit writes. The group commit ({@link GroupCommit}) takes over the open file from here.
 *
 * <p>Start-up only: {@link #open} blocks the calling thread (never call it on the pump). Immutable
 * once made; the records are the scan's immutable entries.
 *
 * @param file       the journal, open for reading and writing
 * @param kept       the intact records to replay, in file order, at their offsets in {@code file}
 * @param end        where the next commit writes
 * @param nextNumber the number of the next commit's first record
 * @param report     what was cut or repaired
 */
record RecoveredJournal(RingFile file, List<JournalScan.Entry> kept, long end, long nextNumber,
                        JournalRecoveryReport report) {

    private static final Log LOG = LogFactory.getLog(Journal.class);
    private static final int READ_CHUNK = 1 << 20;

    /** See {@link Journal#open(RingPool, Path, Duration, JournalRecovery)}. */
    static RecoveredJournal open(RingPool pool, Path path, Duration timeout, JournalRecovery recovery) throws IOException {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(recovery, "recovery");
        // The directory exists: Journal.open made it before claiming the journal.
        RingFile file = openOnRing(pool, path, timeout);
        try {
            byte[] data = readAll(file, path, timeout);
            JournalScan scan;
            try {
                scan = JournalScan.of(data, data.length);
            } catch (UnsupportedJournalFormatException e) {
                throw e.at(path);
            }
            int format = scan.format();
            Mended mended = mend(path, data, scan, recovery);
            if (mended.replaced()) {
                // The name now points at a new file: drop the old one's descriptor, and read the new
                // one, so that the records to replay carry their offsets in it.
                await(file.closeAsync(), timeout, "close " + path);
                file = openOnRing(pool, path, timeout);
                data = readAll(file, path, timeout);
                scan = JournalScan.of(data, data.length);
                if (scan.verdict() != JournalScan.Verdict.CLEAN) {
                    throw new IOException("the rewritten journal " + path.toAbsolutePath() + " does not read back clean: "
                            + scan.damages());
                }
            }
            List<JournalScan.Entry> kept = scan.kept();
            long end = mended.initialised() ? JournalCodec.FILE_HEADER : scan.tailOffset();
            long next = kept.isEmpty() ? 0 : kept.getLast().number() + 1;
            LOG.info("Journal: " + kept.size() + " changes read from " + path.toAbsolutePath() + " (format "
                    + format + ", " + end
                    + " bytes) on " + pool.forKey(path.toAbsolutePath()).getName());
            return new RecoveredJournal(file, kept, end, next, mended.report());
        } catch (IOException | RuntimeException e) {
            file.closeAsync();
            throw e;
        }
    }

    /** The changes of the records to replay, in file order. */
    List<Change> changes() {
        return kept.stream().map(JournalScan.Entry::change).toList();
    }

    private static RingFile openOnRing(RingPool pool, Path path, Duration timeout) throws IOException {
        return await(pool.openAsync(path, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE),
                timeout, "open " + path);
    }

    private static byte[] readAll(RingFile file, Path path, Duration timeout) throws IOException {
        long size = await(file.sizeAsync(), timeout, "size of " + path);
        if (size > Journal.MAX_REPLAY_BYTES) {
            throw new IOException(path + " is " + size + " bytes, more than the " + Journal.MAX_REPLAY_BYTES
                    + " a replay reads");
        }
        byte[] data = new byte[(int) size];
        ByteBuffer chunk = ByteBuffer.allocateDirect((int) Math.min(Math.max(size, 1), READ_CHUNK));
        for (long at = 0; at < size; ) {
            chunk.clear().limit((int) Math.min(chunk.capacity(), size - at));
            int n = await(file.readFullyAsync(chunk, at), timeout, "read " + path);
            if (n <= 0) {
                throw new IOException(path + " ended at " + at + " while " + size + " bytes were expected");
            }
            chunk.flip().get(data, (int) at, n);
            at += n;
        }
        return data;
    }

    /**
     * What {@link #mend} did to the file: what it cut or repaired, whether the file was replaced by a
     * rewritten one, or given its file header.
     */
    private record Mended(JournalRecoveryReport report, boolean replaced, boolean initialised) {
    }

    /** Does what the scan calls for to the file (see {@link Journal#open}); blocking file channels. */
    private static Mended mend(Path path, byte[] data, JournalScan scan, JournalRecovery recovery) throws IOException {
        Path file = path.toAbsolutePath();
        if (scan.verdict() == JournalScan.Verdict.CORRUPT) {
            if (recovery == JournalRecovery.REFUSE) {
                throw new JournalCorruptedException(path, scan);
            }
            List<JournalScan.Entry> kept = scan.records();
            Path aside = mending(file, "rewriting it without the damaged records",
                    () -> JournalFiles.replace(file, changesOf(kept), "damaged"));
            JournalRepairReport report = new JournalRepairReport(aside, kept.size(), scan.damages());
            LOG.warn("Journal: repaired " + file + ": " + report);
            for (JournalDamage d : scan.damages()) {
                LOG.warn("Journal: repair dropped " + d);
            }
            return new Mended(new JournalRecoveryReport(0, null, report), true, false);
        }
        long tornBytes = 0;
        Path tornCopy = null;
        if (scan.verdict() == JournalScan.Verdict.TORN_TAIL) {
            int offset = (int) scan.tailOffset();
            tornBytes = scan.size() - offset;
            String tail = "the torn tail (" + tornBytes + " bytes at offset " + offset + ")";
            tornCopy = mending(file, "keeping " + tail + " aside",
                    () -> JournalFiles.keepAside(file, "torn-" + offset, data, offset, scan.size()));
            if (scan.format() == JournalCodec.FORMAT) {
                mending(file, "cutting " + tail, () -> {
                    JournalFiles.cut(file, offset);
                    return null;
                });
            }
            LOG.warn("Journal: cut a torn tail at offset " + offset + " of " + file + " (" + tornBytes
                    + " bytes dropped; kept in " + tornCopy + "): " + scan.damages().getFirst().reason());
        }
        if (scan.format() != JournalCodec.FORMAT) {
            List<JournalScan.Entry> kept = scan.kept();
            Path old = mending(file, "rewriting it from format 1", () -> JournalFiles.replace(file, changesOf(kept), "format1"));
            LOG.info("Journal: rewrote " + file + " from format 1 in format " + JournalCodec.FORMAT + " (" + kept.size()
                    + " records); the old file is kept as " + old);
            return new Mended(new JournalRecoveryReport(tornBytes, tornCopy, null), true, false);
        }
        JournalRecoveryReport cut = tornBytes == 0 ? JournalRecoveryReport.NOTHING
                : new JournalRecoveryReport(tornBytes, tornCopy, null);
        if (scan.size() == 0 || scan.tailOffset() == 0) {
            mending(file, "writing the file header of a new journal", () -> {
                JournalFiles.initialise(file);
                return null;
            });
            return new Mended(cut, false, true);
        }
        return new Mended(cut, false, false);
    }

    /** One step of the file surgery. */
    private interface Step<T> {
        T run() throws IOException;
    }

    /** Runs a step of {@link #mend}; its failure becomes a {@link JournalMendingException} naming it. */
    private static <T> T mending(Path file, String what, Step<T> step) throws JournalMendingException {
        try {
            return step.run();
        } catch (IOException e) {
            throw new JournalMendingException(file, what, e);
        }
    }

    private static List<Change> changesOf(List<JournalScan.Entry> entries) {
        return entries.stream().map(JournalScan.Entry::change).toList();
    }

}
