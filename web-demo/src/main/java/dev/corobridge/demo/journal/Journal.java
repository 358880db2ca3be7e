package dev.corobridge.demo.journal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Task;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.ChangeLog;
import dev.corobridge.demo.changelog.ChangeLogHealth;
import dev.corobridge.demo.changelog.ChangeLogMetrics;
import dev.corobridge.demo.changelog.ChangeSink;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.demo.changelog.LoggedChange;
import dev.corobridge.demo.io.FileClaim;
import dev.corobridge.demo.io.FileIdentity;
import dev.corobridge.ring.Ring;
import dev.corobridge.ring.RingPool;

/**
 * The default {@link ChangeLog}: an append-only journal file on the ring pool. A change is durable
 * (written, then {@code fdatasync}) before {@link #append} completes, and changes that arrive while
 * a commit is in flight share the next one (group commit); durable changes reach the
 * {@link ChangeSink} in file order. Positions are partition 0 and the record's byte offset.
 *
 * <p>Two parts, one per phase of the journal's life: {@link RecoveredJournal} reads and mends the
 * file at {@link #open} (scanning it with {@link JournalScan}); {@link GroupCommit} then appends,
 * commits and delivers (its class comment has the algorithm, the cancellation and failure rules,
 * and the close). This class joins them behind the {@link ChangeLog} calls and keeps what start-up
 * found (the changes to replay, a torn tail cut, a repair).
 *
 * <p><b>Thread-safety.</b> As {@link ChangeLog} says: {@link #append}, {@link #metrics},
 * {@link #health} and the start-up accessors from any thread; {@link #start} once. The sink is
 * called on the journal's ring (for the replay: on the thread calling {@link #start}). Changes
 * appended before {@link #start} (a journal used alone, as in its tests) are durable but not
 * delivered.
 */
public final class Journal implements ChangeLog, AutoCloseable {

    private static final Log LOG = LogFactory.getLog(Journal.class);

    /** Most record bytes one commit writes. */
    public static final int MAX_BATCH_BYTES = 1 << 20;
    /** Largest journal replayed (the whole file is read into memory). */
    public static final long MAX_REPLAY_BYTES = 1L << 30;

    private final Path path;
    private final Ring ring;
    private final RecoveredJournal recovered;
    private final List<Change> replayed;
    private final GroupCommit commit;
    private final AtomicBoolean started = new AtomicBoolean();
    /** The claim on the file, from open until close (see {@link FileClaim}). */
    private final FileClaim lock;

    private Journal(Path path, Ring ring, RecoveredJournal recovered, FileClaim lock) {
        this.path = path;
        this.lock = lock;
        this.ring = ring;
        this.recovered = recovered;
        this.replayed = recovered.changes();
        FileIdentity file = FileIdentity.of(path); // after the recovery, which may have put a new file there
        this.commit = new GroupCommit(path, ring, recovered.file(), recovered.end(), recovered.nextNumber(),
                () -> replaced(file));
    }

    /**
     * What took the journal's files away since it was opened, or null: the journal file no longer
     * the one at its path (removed, moved, replaced), or the claim's lock file removed (a second
     * journal could claim the file). Null where the file system gives files no identity.
     */
    private String replaced(FileIdentity file) {
        if (lock.isLockFileReplaced()) {
            return "its lock file was removed or replaced, so another service could write to it";
        }
        return file.isReplaced() ? "its file was removed or replaced" : null;
    }

    /**
     * {@link #open(RingPool, Path, Duration, JournalRecovery)} with {@link JournalRecovery#REFUSE}:
     * a corrupted journal is refused.
     */
    public static Journal open(RingPool pool, Path path, Duration timeout) throws IOException {
        return open(pool, path, timeout, JournalRecovery.REFUSE);
    }

    /**
     * Opens (or creates) the journal at {@code path} and reads it back through the ring pool; its
     * commits run on {@code pool.forKey(path)}. Blocks the calling thread (start-up; never call it on
     * the pump). By what {@link JournalScan} finds:
     * <ul>
     *   <li>clean: nothing to do;</li>
     *   <li>a torn tail: the cut bytes are kept in {@code <path>.torn-<offset>-<time>}, then the
     *       file is cut at the damage; logged once ({@code Journal: cut a torn tail at offset ...});</li>
     *   <li>corrupted: with {@link JournalRecovery#REFUSE}, throws {@link JournalCorruptedException}
     *       and leaves the file byte for byte as it was; with {@link JournalRecovery#REPAIR}, keeps
     *       the damaged file as {@code <path>.damaged-<time>}, writes a new journal holding every
     *       intact record, and logs what was dropped ({@link #recovery()});</li>
     *   <li>format 1 (no file header): rewritten in format 2 (after the above), the old file kept
     *       as {@code <path>.format1-<time>}.</li>
     * </ul>
     *
     * <p>The journal is claimed first ({@code <path>.lock}, see {@link JournalLock}) and stays
     * claimed until {@link #close}: a second journal on the same file, in any process, is refused.
     *
     * @throws JournalInUseException             if another journal, here or in another process,
     *                                           holds the file; nothing was read or changed
     * @throws JournalCorruptedException         if the journal is corrupted and {@code recovery} is
     *                                           {@link JournalRecovery#REFUSE}
     * @throws UnsupportedJournalFormatException if the file is in a format this code does not read
     * @throws IOException                       if the file cannot be opened, read or repaired, or
     *                                           exceeds {@link #MAX_REPLAY_BYTES}
     */
    public static Journal open(RingPool pool, Path path, Duration timeout, JournalRecovery recovery) throws IOException {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(path, "path");
        Files.createDirectories(path.toAbsolutePath().getParent());
        FileClaim lock = FileClaim.acquire(path, JournalInUseException::new);
        try {
            RecoveredJournal recovered = RecoveredJournal.open(pool, path, timeout, recovery);
            return new Journal(path, pool.forKey(path.toAbsolutePath()), recovered, lock);
        } catch (IOException | RuntimeException | Error e) {
            try {
                lock.release();
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The ring the journal's commits run on ({@code pool.forKey(path)} of {@link #open}). */
    public Ring ring() {
        return ring;
    }

    /**
     * Hands the records read at {@link #open} to {@code sink} (one {@link ChangeSink#replay} call,
     * on the calling thread, those before {@code from} left out), then every change that becomes
     * durable, in file order, on the journal's ring. The task is complete when this returns.
     *
     * @throws IllegalStateException if the journal was started before
     */
    @Override
    public Task<Void> start(List<LogPosition> from, ChangeSink sink) {
        Objects.requireNonNull(sink, "sink");
        long after = 0;
        for (LogPosition p : from) {
            if (p.partition() == 0) {
                after = p.offset();
            }
        }
        List<LoggedChange> replay = new ArrayList<>(recovered.kept().size());
        for (JournalScan.Entry e : recovered.kept()) {
            if (e.offset() >= after) {
                replay.add(new LoggedChange(e.change(), new LogPosition(0, e.offset()), LoggedChange.NOT_APPENDED_HERE));
            }
        }
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("the journal " + path.toAbsolutePath() + " was started before");
        }
        sink.replay(replay);
        commit.deliverTo(sink); // after the replay: the sink sees every replayed change before a live one
        return Task.completed(null);
    }

    /**
     * Makes a change durable (see {@link ChangeLog#append}). The task completes, on the journal's
     * ring, with the record's position once it is written and {@code fdatasync} has returned; the
     * sink got the change (with {@code appendId}) just before. It fails with
     * {@link JournalClosedException} when {@link #close} has begun or the journal's ring has shut
     * down (the change is not written), and with {@link BoardException} of kind
     * {@link BoardException.Kind#UNAVAILABLE} when the journal is broken or the write failed.
     * Cancelling it only stops this caller's wait (see {@link GroupCommit}).
     *
     * @param trace if not {@code null}, gets a {@code journal} step on the ring's thread once durable
     */
    @Override
    public Task<LogPosition> append(Change change, long appendId, HopTrace trace) {
        return commit.append(change, appendId, trace);
    }

    /** The changes read at start-up, in journal order. */
    public List<Change> replayed() {
        return replayed;
    }

    /** What opening the journal cut or repaired. */
    public JournalRecoveryReport recovery() {
        return recovered.report();
    }

    /** Snapshot of the journal's counters; {@code commits} are {@code fdatasync}s. */
    @Override
    public ChangeLogMetrics metrics() {
        return new ChangeLogMetrics(commit.changes(), replayed.size(), commit.commits(), commit.bytes(),
                commit.largestBatch(), commit.queued(), commit.isBroken());
    }

    /**
     * Down once a write or {@code fdatasync} failed (the service refuses changes from then on), up
     * otherwise; details: the file, its counters, and what start-up cut ({@code tornTailKeptIn}) or
     * repaired ({@code repairedAtStart}: the damaged copy, what was kept and dropped).
     */
    @Override
    public ChangeLogHealth health() {
        ChangeLogMetrics m = metrics();
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("path", path.toAbsolutePath().toString());
        details.put("changes", m.changes());
        details.put("fsyncs", m.commits());
        details.put("bytes", m.bytes());
        JournalRecoveryReport recovery = recovery();
        details.put("tornBytesCutAtStart", recovery.tornBytes());
        if (recovery.tornTailCopy() != null) {
            details.put("tornTailKeptIn", recovery.tornTailCopy().toAbsolutePath().toString());
        }
        JournalRepairReport repair = recovery.repair();
        if (repair != null) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("damagedCopy", repair.damagedCopy().toAbsolutePath().toString());
            r.put("keptRecords", repair.keptRecords());
            r.put("droppedBytes", repair.droppedBytes());
            r.put("droppedRecords", repair.droppedRecords());
            r.put("dropped", repair.dropped().stream().limit(100).map(JournalDamage::toString).toList());
            details.put("repairedAtStart", r);
        }
        if (m.broken()) {
            details.put("reason", "a write or fdatasync failed; restart to replay the valid journal");
        }
        return new ChangeLogHealth(!m.broken(), details);
    }

    /** Whether a write or fdatasync failed (the journal refuses changes since). */
    public boolean isBroken() {
        return commit.isBroken();
    }

    /**
     * Refuses new appends ({@link JournalClosedException}), lets every append admitted before
     * commit (up to {@code timeout}), then closes the file. If the commits do not drain in time, the
     * file is closed anyway and the appends still waiting fail with {@link JournalClosedException}
     * (not acknowledged; a write already under way may have reached the disk). Only the first call
     * does this; later ones return at once.
     */
    @Override
    public void close(Duration timeout) {
        if (commit.close(timeout)) {
            LOG.info("Journal: closed " + path.toAbsolutePath() + "; " + metrics());
        }
        // After the file is closed: only then may another journal open it.
        try {
            lock.release();
        } catch (IOException e) {
            LOG.warn("Journal: releasing the lock of " + path.toAbsolutePath() + " failed: " + e);
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }
}
