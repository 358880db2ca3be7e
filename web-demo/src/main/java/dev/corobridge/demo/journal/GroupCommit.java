package dev.corobridge.demo.journal;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.context.CapturedContext;
import dev.corobridge.context.ContextPropagation;
import dev.corobridge.context.RestoredContext;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.ChangeSink;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.demo.changelog.LoggedChange;
import dev.corobridge.ring.Ring;
import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingIoException;

/**
 * The journal's writer: <b>group commit</b> of appended changes on the journal's ring, and their
 * delivery, once durable, to the {@link ChangeSink}, in file order.
 *
 * <p><b>Algorithm.</b> {@link #append} encodes the record's payload and checksum on the caller's
 * thread, queues it and, if no commit is scheduled, schedules one on the journal's ring. A commit
 * takes every queued record (up to {@link Journal#MAX_BATCH_BYTES}), numbers them and writes them
 * with one {@code writeFully} at the end of the file, calls {@code fdatasync}, and only then hands
 * the batch to the sink (one {@link ChangeSink#apply} call, records in file order), completes the
 * appends' promises in append order, and starts the next commit if records are waiting. So at most
 * one commit is in flight, the file's order is the order of {@link #append} calls and the order the
 * sink sees, and at 64 waiting writers one {@code fdatasync} covers up to 64 changes.
 *
 * <p><b>Cancellation.</b> Cancelling the task {@link #append} returned ends only that caller's
 * wait: the record, once queued, is written all the same and delivered to the sink when the commit
 * ends, in file order. What the service applies its live state from is thus always what a restart
 * replays. (The task is a view of the record's own outcome, which only the commit decides.)
 *
 * <p><b>Thread-safety.</b> {@link #append} may be called from any thread; records appended by one
 * thread keep their order. The commit state is touched only by the commit in flight, which hands it
 * to the next through promise completion (a happens-before edge); the sink is therefore called from
 * one thread at a time, each call happening-before the next. Promises complete, and the sink is
 * called, on the ring's thread (the blocking executor's under the fallback transport).
 *
 * <p><b>Failure.</b> If a write or {@code fdatasync} fails, the batch's appends fail (their records
 * are not delivered), the journal turns broken and refuses further appends
 * ({@link BoardException.Kind#UNAVAILABLE}): after a failed {@code fdatasync} nothing can be said
 * about what reached the disk (the lesson of "fsyncgate"), so the service stops acknowledging
 * instead of guessing. A restart replays what is valid.
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
 */
final class GroupCommit {

    private static final Log LOG = LogFactory.getLog(Journal.class);

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
    private final AdmissionGate gate = new AdmissionGate();
    /** Where durable records go; {@code null} until the journal is started (they are not delivered then). */
    private volatile ChangeSink sink;
    /** Set when close stops waiting for commits (timeout) and closes the file under them. */
    private volatile boolean abandoned;
    private volatile Throwable broken;
    /**
     * Set when the ring refused a commit (it has shut down): nothing is committed any more, and
     * {@code scheduled} stays set, so no commit is scheduled again.
     */
    private volatile RejectedExecutionException ringGone;

    private final Supplier<String> replaced;

    // Commit state: owned by the commit in flight (see class comment).
    private long end;
    private long nextNumber;
    private ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);

    /**
     * @param replaced what took the journal's files away since its open, or null (checked before
     *                 every commit's write: two {@code stat}s a commit)
     */
    GroupCommit(Path path, Ring ring, RingFile file, long end, long nextNumber, Supplier<String> replaced) {
        this.path = path;
        this.replaced = replaced;
        this.ring = ring;
        this.file = file;
        this.end = end;
        this.nextNumber = nextNumber;
        this.bytes.set(end);
    }

    /** From now on, durable records go to {@code sink}. */
    void deliverTo(ChangeSink sink) {
        this.sink = sink;
    }

    /** See {@link Journal#append}. */
    Task<LogPosition> append(Change change, long appendId, HopTrace trace) {
        Entry e = new Entry(change, appendId, trace);
        // The caller's view: cancelling it ends only the caller's wait, never the record's outcome.
        Promise<LogPosition> view = new Promise<>();
        e.durable.onComplete(view::settle);
        Throwable b = broken;
        if (b != null) {
            e.durable.fail(unavailable(b));
            return Task.from(view);
        }
        RejectedExecutionException gone = ringGone;
        if (gone != null) {
            e.durable.fail(ringShutDown(gone));
            return Task.from(view);
        }
        if (!gate.enter()) {
            e.durable.fail(new JournalClosedException(path, "is closing; the change was not written"));
            return Task.from(view);
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
        return Task.from(view);
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
            if (!batch.isEmpty() && size + e.size() > Journal.MAX_BATCH_BYTES) {
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
        write(batch, size);
    }

    /** Writes a batch as one commit at the end of the file, then {@code fdatasync}; then {@link #committed}. */
    private void write(List<Entry> batch, int size) {
        String gone = replaced.get();
        if (gone != null) { // it would go where no restart reads it, or where another service writes
            fail(batch, "the check that the journal is still the file at its path",
                    new Outcome.Failure<>(new JournalFileReplacedException(gone)));
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
        file.writeFullyAsync(buf, at).onComplete(written -> {
            if (!(written instanceof Outcome.Success<Integer>)) {
                fail(batch, "write of " + size + " bytes at " + at, written);
                return;
            }
            file.fdatasyncAsync().onComplete(synced -> {
                if (!(synced instanceof Outcome.Success<Void>)) {
                    fail(batch, "fdatasync", synced);
                    return;
                }
                end = at + size;
                nextNumber = first + batch.size();
                committed(batch, at, size);
                commitNext();
            });
        });
    }

    /**
     * A batch is durable, its first record at {@code at}: counts it, records each writer's hop, hands
     * the batch to the sink in file order, then answers the appends.
     */
    private void committed(List<Entry> batch, long at, int size) {
        commits.incrementAndGet();
        changes.addAndGet(batch.size());
        bytes.addAndGet(size);
        largestBatch.accumulateAndGet(batch.size(), Math::max);
        List<LoggedChange> durable = new ArrayList<>(batch.size());
        long offset = at;
        for (Entry e : batch) {
            LogPosition position = new LogPosition(0, offset);
            if (e.trace != null) {
                e.trace.record(ring.getName(), "journal");
            }
            if (e.context != null) {
                // In the writer's context (MDC, trace id), so the line belongs to its request.
                try (RestoredContext restored = e.context.restore()) {
                    LOG.debug("journal: change durable at offset " + offset + " (written and fdatasync'ed)");
                }
            }
            durable.add(new LoggedChange(e.change, position, e.appendId));
            offset += e.size();
        }
        ChangeSink s = sink;
        if (s != null) {
            try {
                s.apply(durable);
            } catch (RuntimeException bug) {
                LOG.error("Journal: the change sink failed on " + durable.size() + " durable changes", bug);
            }
        }
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).durable.complete(durable.get(i).position());
        }
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
            if (t instanceof JournalFileReplacedException replaced) {
                reason = replaced.getMessage();
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

    /** Changes made durable since start. */
    long changes() {
        return changes.get();
    }

    /** Commits (each one {@code fdatasync}) since start. */
    long commits() {
        return commits.get();
    }

    /** Size of the journal file. */
    long bytes() {
        return bytes.get();
    }

    /** Most changes one commit carried. */
    long largestBatch() {
        return largestBatch.get();
    }

    /** Changes waiting for the next commit. */
    int queued() {
        return queue.size();
    }

    /** Whether a write or fdatasync failed (the journal refuses changes since). */
    boolean isBroken() {
        return broken != null;
    }

    /** See {@link Journal#close(Duration)}; {@code false} if it was closed before. */
    boolean close(Duration timeout) {
        if (!gate.close()) {
            return false;
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
        return true;
    }

    /**
     * One queued record: its change, payload and checksum (made on the appending thread), the
     * writer's trace and, for the DEBUG line, context, and its outcome, decided by the commit (or a
     * refusal) only: never handed to the caller, who gets a view.
     */
    private static final class Entry {
        final Change change;
        final long appendId;
        final byte[] payload;
        final int payloadCrc;
        final HopTrace trace;
        final CapturedContext context;
        final Promise<LogPosition> durable = new Promise<>();

        Entry(Change change, long appendId, HopTrace trace) {
            this.change = change;
            this.appendId = appendId;
            this.payload = JournalCodec.payload(change);
            this.payloadCrc = JournalCodec.crc(payload, 0, payload.length);
            this.trace = trace;
            this.context = LOG.isDebugEnabled() ? ContextPropagation.capture() : null;
        }

        /** Bytes of the record in the file. */
        int size() {
            return JournalCodec.HEADER + payload.length;
        }
    }
}
