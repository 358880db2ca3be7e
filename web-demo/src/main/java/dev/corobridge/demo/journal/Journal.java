package dev.corobridge.demo.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.Change;
import dev.corobridge.ring.Ring;
import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingIoException;
import dev.corobridge.ring.RingPool;

/**
 * An append-only journal of {@link Change}s on the ring pool with <b>group commit</b>: a change is
 * durable (written, then {@code fdatasync}) before {@link #append} completes, and changes that
 * arrive while a commit is in flight share the next one.
 *
 * <p><b>Algorithm.</b> {@link #append} encodes the record's payload and checksum on the caller's
 * thread, queues it and, if no commit is scheduled, schedules one on the journal's ring (one ring
 * per file: {@code forKey}). A commit takes every queued record (up to {@link #MAX_BATCH_BYTES}),
 * numbers them and writes them with one
 * {@code writeFully} at the end of the file, calls {@code fdatasync}, and only then completes their
 * promises, in append order, and starts the next commit if records are waiting. So at most one
 * commit is in flight, the file's order is the order of {@link #append} calls, and at 64 waiting
 * writers one {@code fdatasync} covers up to 64 changes.
 *
 * <p><b>Cancellation.</b> Cancelling the awaitable {@link #append} returned ends only that caller's
 * wait: the record, once queued, is written all the same, and the in-file-order callback is told its
 * real outcome when the commit ends, in file order. What the service applies its live state from is
 * thus always what a restart replays. (The awaitable is a view of the record's own outcome, which
 * only the commit decides.)
 *
 * <p><b>Thread-safety.</b> {@link #append} may be called from any thread; records appended by one
 * thread keep their order. The commit state is touched only by the commit in flight, which hands it
 * to the next through promise completion (a happens-before edge). Promises complete on the ring's
 * thread (the blocking executor's under the fallback transport).
 *
 * <p><b>Failure.</b> If a write or {@code fdatasync} fails, the batch's appends fail, the journal
 * turns broken and refuses further appends ({@link BoardException.Kind#UNAVAILABLE}): after a
 * failed {@code fdatasync} nothing can be said about what reached the disk (the lesson of
 * "fsyncgate"), so the service stops acknowledging instead of guessing. A restart replays what is
 * valid.
 *
 * <p><b>The ring shuts down.</b> If the ring refuses the commit (the pool has shut down, so nothing
 * can be written any more), the records waiting fail with {@link JournalClosedException} (not
 * written), every later append fails so at once, and {@link #close} has nothing to wait for. The
 * journal is not broken: the service is stopping.
 *
 * <p><b>Close.</b> Appends pass an {@link AdmissionGate} while they queue their record. {@link #close}
 * shuts the gate, so an append either got in before (its record is queued, and the close waits
 * until the commits have drained the queue: it is acknowledged as usual) or is refused with
 * {@link JournalClosedException}, and nothing is written once the file is closed. A closing
 * journal is not a broken one: the refusal is not a failure of the journal.
 *
 * <p><b>Records.</b> Each commit writes its records in {@link JournalCodec} format 2: numbered
 * consecutively over the file, with each record's position in its commit and a flag on the
 * commit's last record, so that a reader can tell a torn last write from damage in the middle.
 *
 * <p><b>Start-up.</b> {@link #open} reads the file through the ring, scans it
 * ({@link JournalScan}), cuts a torn tail (its bytes kept beside the journal, logged once), refuses
 * a corrupted journal or repairs it on request ({@link JournalRecovery}), and returns the changes
 * to replay.
 */
public final class Journal implements AutoCloseable {

    private static final Log LOG = LogFactory.getLog(Journal.class);

    /** Most record bytes one commit writes. */
    public static final int MAX_BATCH_BYTES = 1 << 20;
    /** Largest journal replayed (the whole file is read into memory). */
    public static final long MAX_REPLAY_BYTES = 1L << 30;
    private static final int READ_CHUNK = 1 << 20;

    private final Path path;
    private final Ring ring;
    private final RingFile file;
    private final ConcurrentLinkedQueue<Entry> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final AtomicLong changes = new AtomicLong();
    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong largestBatch = new AtomicLong();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final List<Change> replayed;
    private final Recovered recovered;
    private final AdmissionGate gate = new AdmissionGate();
    /** Set when close stops waiting for commits (timeout) and closes the file under them. */
    private volatile boolean abandoned;
    private volatile Throwable broken;
    /**
     * Set when the ring refused a commit (it has shut down): nothing is committed any more, and
     * {@code scheduled} stays set, so no commit is scheduled again.
     */
    private volatile RejectedExecutionException ringGone;

    // Commit state: owned by the commit in flight (see class comment).
    private long end;
    private long nextNumber;
    private ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);

    private Journal(Path path, Ring ring, RingFile file, List<Change> replayed, Recovered recovered) {
        this.path = path;
        this.ring = ring;
        this.file = file;
        this.end = recovered.end();
        this.nextNumber = recovered.nextNumber();
        this.replayed = List.copyOf(replayed);
        this.recovered = recovered;
        this.bytes.set(end);
    }

    /**
     * {@link #open(RingPool, Path, Duration, JournalRecovery)} with {@link JournalRecovery#REFUSE}:
     * a corrupted journal is refused.
     */
    public static Journal open(RingPool pool, Path path, Duration timeout) throws IOException {
        return open(pool, path, timeout, JournalRecovery.REFUSE);
    }

    /**
     * Opens (or creates) the journal at {@code path} and reads it back through the ring pool. Blocks
     * the calling thread (start-up; never call it on the pump). By what {@link JournalScan} finds:
     * <ul>
     *   <li>clean: nothing to do;</li>
     *   <li>a torn tail: the cut bytes are kept in {@code <path>.torn-<offset>-<time>}, then the
     *       file is cut at the damage; logged once ({@code Journal: cut a torn tail at offset ...});</li>
     *   <li>corrupted: with {@link JournalRecovery#REFUSE}, throws {@link JournalCorruptedException}
     *       and leaves the file byte for byte as it was; with {@link JournalRecovery#REPAIR}, keeps
     *       the damaged file as {@code <path>.damaged-<time>}, writes a new journal holding every
     *       intact record, and logs what was dropped ({@link #repairReport()});</li>
     *   <li>format 1 (no file header): rewritten in format 2 (after the above), the old file kept
     *       as {@code <path>.format1-<time>}.</li>
     * </ul>
     *
     * @throws JournalCorruptedException         if the journal is corrupted and {@code recovery} is
     *                                           {@link JournalRecovery#REFUSE}
     * @throws UnsupportedJournalFormatException if the file is in a format this code does not read
     * @throws IOException                       if the file cannot be opened, read or repaired, or
     *                                           exceeds {@link #MAX_REPLAY_BYTES}
     */
    public static Journal open(RingPool pool, Path path, Duration timeout, JournalRecovery recovery) throws IOException {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(timeout, "timeout");
        Objects.requireNonNull(recovery, "recovery");
        Files.createDirectories(path.toAbsolutePath().getParent());
        Ring ring = pool.forKey(path.toAbsolutePath());
        RingFile file = openOnRing(pool, path, timeout);
        try {
            byte[] data = readAll(file, path, timeout);
            JournalScan scan = JournalScan.of(data, data.length);
            Recovered r = recover(path, data, scan, recovery);
            if (r.replaced()) {
                // The name now points at a new file: drop the old one's descriptor.
                await(file.closeAsync(), timeout, "close " + path);
                file = openOnRing(pool, path, timeout);
            }
            List<Change> replay = new ArrayList<>(r.kept().size());
            for (JournalScan.Entry e : r.kept()) {
                replay.add(e.change());
            }
            LOG.info("Journal: " + replay.size() + " changes read from " + path.toAbsolutePath() + " (format "
                    + scan.format() + ", " + r.end() + " bytes) on " + ring.getName());
            return new Journal(path, ring, file, replay, r);
        } catch (IOException | RuntimeException e) {
            file.closeAsync();
            throw e;
        }
    }

    private static RingFile openOnRing(RingPool pool, Path path, Duration timeout) throws IOException {
        return await(pool.openAsync(path, StandardOpenOption.READ, StandardOpenOption.WRITE, StandardOpenOption.CREATE),
                timeout, "open " + path);
    }

    private static byte[] readAll(RingFile file, Path path, Duration timeout) throws IOException {
        long size = await(file.sizeAsync(), timeout, "size of " + path);
        if (size > MAX_REPLAY_BYTES) {
            throw new IOException(path + " is " + size + " bytes, more than the " + MAX_REPLAY_BYTES + " a replay reads");
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

    /** Does what the scan calls for to the file (see {@link #open}); blocking file channels. */
    private static Recovered recover(Path path, byte[] data, JournalScan scan, JournalRecovery recovery)
            throws IOException {
        Path file = path.toAbsolutePath();
        if (scan.verdict() == JournalScan.Verdict.CORRUPT) {
            if (recovery == JournalRecovery.REFUSE) {
                throw new JournalCorruptedException(path, scan);
            }
            List<JournalScan.Entry> kept = scan.records();
            Path aside = JournalFiles.replace(file, changesOf(kept), "damaged");
            JournalRepairReport report = new JournalRepairReport(aside, kept.size(), scan.damages());
            LOG.warn("Journal: repaired " + file + ": " + report);
            for (JournalDamage d : scan.damages()) {
                LOG.warn("Journal: repair dropped " + d);
            }
            return new Recovered(kept, Files.size(file), kept.size(), 0, null, report, true);
        }
        long tornBytes = 0;
        Path tornCopy = null;
        if (scan.verdict() == JournalScan.Verdict.TORN_TAIL) {
            int offset = (int) scan.tailOffset();
            tornBytes = scan.size() - offset;
            tornCopy = JournalFiles.keepAside(file, "torn-" + offset, data, offset, scan.size());
            if (scan.format() == JournalCodec.FORMAT) {
                JournalFiles.cut(file, offset);
            }
            LOG.warn("Journal: cut a torn tail at offset " + offset + " of " + file + " (" + tornBytes
                    + " bytes dropped; kept in " + tornCopy + "): " + scan.damages().getFirst().reason());
        }
        List<JournalScan.Entry> kept = scan.kept();
        if (scan.format() != JournalCodec.FORMAT) {
            Path old = JournalFiles.replace(file, changesOf(kept), "format1");
            LOG.info("Journal: rewrote " + file + " from format 1 in format " + JournalCodec.FORMAT + " (" + kept.size()
                    + " records); the old file is kept as " + old);
            return new Recovered(kept, Files.size(file), kept.size(), tornBytes, tornCopy, null, true);
        }
        if (scan.size() == 0 || scan.tailOffset() == 0) {
            JournalFiles.initialise(file);
            return new Recovered(kept, JournalCodec.FILE_HEADER, 0, tornBytes, tornCopy, null, false);
        }
        long next = kept.isEmpty() ? 0 : kept.getLast().number() + 1;
        return new Recovered(kept, scan.tailOffset(), next, tornBytes, tornCopy, null, false);
    }

    private static List<Change> changesOf(List<JournalScan.Entry> entries) {
        List<Change> out = new ArrayList<>(entries.size());
        for (JournalScan.Entry e : entries) {
            out.add(e.change());
        }
        return out;
    }

    /**
     * What {@link #recover} left: the records to replay, where the next commit writes, its first
     * record number, and what was cut or repaired.
     */
    private record Recovered(List<JournalScan.Entry> kept, long end, long nextNumber, long tornBytes, Path tornCopy,
                             JournalRepairReport repair, boolean replaced) {
    }

    private static <T> T await(Awaitable<T> op, Duration timeout, String what) throws IOException {
        try {
            return op.join(timeout);
        } catch (TimeoutException e) {
            throw new IOException(what + " did not finish within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " interrupted", e);
        } catch (Exception e) {
            throw new IOException(what + " failed: " + e.getMessage(), e);
        }
    }

    /** The changes read at start-up, in journal order. */
    public List<Change> replayed() {
        return replayed;
    }

    /** Bytes of a torn tail cut at start-up (0 when none). */
    public long tornBytes() {
        return recovered.tornBytes();
    }

    /** Where the bytes of a torn tail cut at start-up were kept, or {@code null} when none was cut. */
    public Path tornTailCopy() {
        return recovered.tornCopy();
    }

    /** What a repair at start-up did, or {@code null} when none was needed (or asked for). */
    public JournalRepairReport repairReport() {
        return recovered.repair();
    }

    /** The journal file. */
    public Path path() {
        return path;
    }

    /** The ring the journal's commits run on. */
    public Ring ring() {
        return ring;
    }

    /**
     * Makes a change durable. The returned awaitable completes (on the journal's ring) with the
     * record's offset once the record is written and {@code fdatasync} has returned. It fails with
     * {@link JournalClosedException} when {@link #close} has begun or the journal's ring has shut
     * down (the change is not written), and with {@link BoardException} of kind
     * {@link BoardException.Kind#UNAVAILABLE} when the journal is broken or the write failed.
     * Cancelling it only stops this caller's wait: a record already queued is written all the same
     * (see the class comment).
     *
     * @param trace if not {@code null}, gets a {@code journal} hop on the thread that saw the commit
     */
    public Awaitable<Long> append(Change change, HopTrace trace) {
        return append(change, trace, null);
    }

    /**
     * {@link #append(Change, HopTrace)}, with {@code inFileOrder} called with the record's outcome on
     * the journal's ring, in the order of the records in the file (on the caller's thread, before
     * this returns, if the append is refused). It is told the real outcome even if the returned
     * awaitable is cancelled. Registering on the returned awaitable instead is not ordered: a record
     * durable before the registration runs its callback on the registering thread, possibly after
     * later records' callbacks ran.
     *
     * @param inFileOrder if not {@code null}, told the outcome in file order
     */
    public Awaitable<Long> append(Change change, HopTrace trace, Consumer<? super Outcome<Long>> inFileOrder) {
        Entry e = new Entry(JournalCodec.payload(change), trace);
        if (inFileOrder != null) {
            e.durable.onComplete(inFileOrder); // before the record is queued: it cannot be late
        }
        // The caller's view: cancelling it ends only the caller's wait, never the record's outcome.
        Promise<Long> view = new Promise<>();
        e.durable.onComplete(view::settle);
        Throwable b = broken;
        if (b != null) {
            e.durable.fail(unavailable(b));
            return view;
        }
        RejectedExecutionException gone = ringGone;
        if (gone != null) {
            e.durable.fail(ringShutDown(gone));
            return view;
        }
        if (!gate.enter()) {
            e.durable.fail(new JournalClosedException(path, "is closing; the change was not written"));
            return view;
        }
        try {
            queue.add(e);
        } finally {
            gate.leave();
        }
        schedule();
        if (ringGone != null) {
            // The ring refused a commit after this record was queued, maybe after the refusal had
            // failed the queue: make sure it is not left waiting (a record is polled, so failed, once).
            failQueued(ringGone);
        }
        return view;
    }

    private void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            submitCommit();
        }
    }

    /**
     * Hands the next commit to the ring (the caller set {@code scheduled}). If the ring refuses it
     * (shut down), nothing can be committed any more: the waiting records fail, {@code scheduled}
     * stays set, and close has nothing to wait for. No commit is in flight then: only the caller
     * that set {@code scheduled} submits, and a commit in flight holds it.
     */
    private void submitCommit() {
        try {
            ring.execute(this::commitNext);
        } catch (RejectedExecutionException e) {
            ringGone = e; // before the queue is failed: an append queuing now sees it (see append)
            LOG.warn("Journal: the ring " + ring.getName() + " refused a commit (it has shut down); "
                    + path.toAbsolutePath() + " takes no more changes");
            failQueued(e);
            drained.complete(null);
        }
    }

    private void failQueued(RejectedExecutionException gone) {
        for (Entry e; (e = queue.poll()) != null; ) {
            e.durable.fail(ringShutDown(gone));
        }
    }

    private JournalClosedException ringShutDown(RejectedExecutionException gone) {
        return new JournalClosedException(path, "cannot commit: its ring has shut down; the change was not written",
                gone);
    }

    /** Starts the next commit, or releases the schedule when nothing waits. */
    private void commitNext() {
        List<Entry> batch = new ArrayList<>();
        int size = 0;
        for (Entry e; (e = queue.peek()) != null; ) {
            if (!batch.isEmpty() && size + e.size() > MAX_BATCH_BYTES) {
                break;
            }
            queue.poll();
            batch.add(e);
            size += e.size();
        }
        if (batch.isEmpty()) {
            scheduled.set(false);
            // An append may have queued after the drain but seen scheduled == true: take it now.
            if (!queue.isEmpty() && scheduled.compareAndSet(false, true)) {
                submitCommit();
            } else if (gate.isClosedAndEmpty() && queue.isEmpty()) {
                // The gate first: once it is closed and empty, every admitted record is queued.
                drained.complete(null);
            }
            return;
        }
        Throwable b = broken;
        if (b != null) {
            failAll(batch, unavailable(b));
            commitNext();
            return;
        }
        if (abandoned) {
            failAll(batch, notCommitted());
            commitNext();
            return;
        }
        if (buffer.capacity() < size) {
            buffer = ByteBuffer.allocateDirect(Math.max(size, buffer.capacity() * 2));
        }
        ByteBuffer buf = buffer.clear();
        long first = nextNumber;
        for (int i = 0; i < batch.size(); i++) {
            Entry e = batch.get(i);
            JournalCodec.putRecord(buf, e.payload, e.payloadCrc, first + i, i, i == batch.size() - 1);
        }
        buf.flip();
        long at = end;
        int length = size;
        file.writeFullyAsync(buf, at).onComplete(written -> {
            if (!(written instanceof Outcome.Success<Integer>)) {
                fail(batch, "write of " + length + " bytes at " + at, written);
                return;
            }
            file.fdatasyncAsync().onComplete(synced -> {
                if (!(synced instanceof Outcome.Success<Void>)) {
                    fail(batch, "fdatasync", synced);
                    return;
                }
                end = at + length;
                nextNumber = first + batch.size();
                commits.incrementAndGet();
                changes.addAndGet(batch.size());
                bytes.addAndGet(length);
                largestBatch.accumulateAndGet(batch.size(), Math::max);
                long offset = at;
                for (Entry e : batch) {
                    if (e.trace != null) {
                        e.trace.record(ring.getName(), "journal");
                    }
                    e.durable.complete(offset);
                    offset += e.size();
                }
                commitNext();
            });
        });
    }

    private void fail(List<Entry> batch, String what, Outcome<?> outcome) {
        Throwable cause = outcome instanceof Outcome.Failure<?> f ? f.error() : new IllegalStateException(outcome.toString());
        if (abandoned) {
            // close gave up waiting and closed the file under this commit: not a journal failure.
            LOG.warn("Journal: " + what + " on " + path.toAbsolutePath() + " did not finish before the file was closed: "
                    + cause);
            failAll(batch, notCommitted());
            commitNext();
            return;
        }
        broken = cause;
        LOG.error("Journal: " + what + " on " + path.toAbsolutePath() + " failed; no further changes are accepted", cause);
        failAll(batch, unavailable(cause));
        commitNext();
    }

    private static void failAll(List<Entry> batch, RuntimeException error) {
        for (Entry e : batch) {
            e.durable.fail(error);
        }
    }

    /**
     * The refusal of a change after the journal broke. Its message is the problem detail a client
     * reads, so it names the kernel's reason (e.g. {@code ENOSPC}) but not the server's paths; the
     * whole failure is its cause, logged once when the journal broke.
     */
    static BoardException unavailable(Throwable broken) {
        String reason = "an I/O error";
        for (Throwable t = broken; t != null; t = t.getCause()) {
            if (t instanceof RingIoException io) {
                reason = io.operation() + " failed: " + io.errnoName();
                break;
            }
        }
        return new BoardException(BoardException.Kind.UNAVAILABLE, "the journal cannot store changes (" + reason
                + "); the service takes no changes until it is restarted", broken);
    }

    private JournalClosedException notCommitted() {
        return new JournalClosedException(path, "closed before this change was committed (commits did not drain in "
                + "time); the change may or may not be durable");
    }

    /** Snapshot of the journal's counters. */
    public JournalMetrics metrics() {
        return new JournalMetrics(changes.get(), commits.get(), bytes.get(), largestBatch.get(), queue.size(),
                broken != null);
    }

    /** Whether a write or fdatasync failed (the journal refuses changes since). */
    public boolean isBroken() {
        return broken != null;
    }

    /**
     * Refuses new appends ({@link JournalClosedException}), lets every append admitted before
     * commit (up to {@code timeout}), then closes the file. If the commits do not drain in time, the
     * file is closed anyway and the appends still waiting fail with {@link JournalClosedException}
     * (not acknowledged; a write already under way may have reached the disk). Only the first call
     * does this; later ones return at once.
     */
    public void close(Duration timeout) {
        if (!gate.close()) {
            return;
        }
        // A commit in flight ends by finding the gate closed and empty and the queue empty, and
        // completes `drained`; if none is in flight, run one to get there.
        schedule();
        try {
            drained.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            abandoned = true;
            LOG.warn("Journal: commits did not drain within " + timeout + "; closing anyway");
        } catch (InterruptedException e) {
            abandoned = true;
            Thread.currentThread().interrupt();
            LOG.warn("Journal: interrupted while waiting for commits to drain; closing anyway");
        } catch (ExecutionException e) {
            abandoned = true; // cannot happen: `drained` only ever completes normally
            LOG.warn("Journal: waiting for commits to drain failed; closing anyway", e);
        }
        try {
            file.closeAsync().join(timeout);
        } catch (Exception e) {
            LOG.warn("Journal: closing " + path.toAbsolutePath() + " failed", e);
        }
        LOG.info("Journal: closed " + path.toAbsolutePath() + "; " + metrics());
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(10));
    }

    /**
     * One queued record: its payload and checksum (made on the appending thread), and its outcome,
     * decided by the commit (or a refusal) only: never handed to the caller, who gets a view.
     */
    private static final class Entry {
        final byte[] payload;
        final int payloadCrc;
        final HopTrace trace;
        final Promise<Long> durable = new Promise<>();

        Entry(byte[] payload, HopTrace trace) {
            this.payload = payload;
            this.payloadCrc = JournalCodec.crc(payload, 0, payload.length);
            this.trace = trace;
        }

        /** Bytes of the record in the file. */
        int size() {
            return JournalCodec.HEADER + payload.length;
        }
    }
}
