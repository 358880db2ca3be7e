package dev.corobridge.demo;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.corobridge.bridge.Task;
import dev.corobridge.demo.board.BoardState;
import dev.corobridge.demo.board.BoardStore;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.demo.io.FileClaim;
import dev.corobridge.demo.snapshot.BoardsSnapshot;
import dev.corobridge.demo.snapshot.SnapshotFile;
import dev.corobridge.demo.snapshot.SnapshotInUseException;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.RingPool;

/**
 * Cluster mode's snapshots: at start, loads the replica's last snapshot into the empty store (so
 * only the log's tail is replayed); then, every interval, copies the boards and the positions they
 * cover on the pump (one consistent cut: both are pump state) and writes them through the ring pool
 * ({@link SnapshotFile}) on a thread of its own, when something was applied since the last one.
 *
 * <p>The snapshot file is claimed ({@link FileClaim}: {@code boards.snapshot.lock}) from
 * {@link #load} until {@link #close}: a second replica on the same data directory refuses to start
 * ({@link SnapshotInUseException}) instead of replacing the snapshot under this one.
 *
 * <p>Thread-safety: {@link #load} at start-up, before the log starts; the schedule runs on its own
 * single thread; {@link #close} from any thread.
 */
final class Snapshotter {

    private static final Log LOG = LogFactory.getLog(Snapshotter.class);

    private final MessagePump pump;
    private final BoardStore store;
    private final ChangeApplier applier;
    private final RingPool pool;
    private final Path file;
    private final String topic;
    private final Duration interval;
    private final Duration timeout;
    private final AtomicLong written = new AtomicLong();
    private final ScheduledExecutorService writer;
    /** The claim on the snapshot file, from {@link #load} until {@link #close}. */
    private volatile FileClaim claim;
    /** Applied-change count the last snapshot was taken at (writer thread only). */
    private long lastAt = -1;

    Snapshotter(MessagePump pump, BoardStore store, ChangeApplier applier, RingPool pool, Path file, String topic,
                Duration interval, Duration timeout) {
        this.pump = pump;
        this.store = store;
        this.applier = applier;
        this.pool = pool;
        this.file = file;
        this.topic = topic;
        this.interval = interval;
        this.timeout = timeout;
        this.writer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "snapshot-writer");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Loads the snapshot into the (empty) store and returns the positions it covers; none when there
     * is no usable snapshot (missing, damaged, or of another topic): the log is replayed from its
     * beginning.
     */
    List<LogPosition> load() throws Exception {
        claim = FileClaim.acquire(file, SnapshotInUseException::new); // before anything is read
        Optional<BoardsSnapshot> found = SnapshotFile.read(pool, file, timeout);
        if (found.isEmpty()) {
            LOG.info("Snapshot: none at " + file.toAbsolutePath() + "; the log is replayed from its beginning");
            return List.of();
        }
        BoardsSnapshot s = found.get();
        if (!s.topic().equals(topic)) {
            LOG.warn("Snapshot: " + file.toAbsolutePath() + " is of topic " + s.topic() + ", not " + topic
                    + "; ignored, the log is replayed from its beginning");
            return List.of();
        }
        Task.start(pump, () -> {
            store.importBoards(s.boards());
            return null;
        }).join(timeout);
        LOG.info("Snapshot: loaded " + s.boards().size() + " boards covering " + s.covers() + " from "
                + file.toAbsolutePath());
        return s.covers();
    }

    /** Takes a snapshot every interval from now on. */
    void schedule() {
        long ms = interval.toMillis();
        writer.scheduleWithFixedDelay(this::snapshotQuietly, ms, ms, TimeUnit.MILLISECONDS);
    }

    /** Snapshots written since start. */
    long written() {
        return written.get();
    }

    /**
     * Takes a snapshot now (on the writer thread, waiting for it) if anything was applied since the
     * last: afterwards a snapshot covers everything applied when this was called.
     */
    void snapshotNow() throws Exception {
        writer.submit(() -> {
            snapshotIfChanged();
            return null;
        }).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Writer thread: a snapshot if anything was applied since the last; {@code true} if it wrote one. */
    private boolean snapshotIfChanged() throws Exception {
        Cut cut = Task.start(pump, () -> new Cut(applier.appliedChanges(), applier.appliedPositions(),
                store.exportBoards())).join(timeout);
        if (cut.applied == lastAt) {
            return false;
        }
        SnapshotFile.write(pool, file, new BoardsSnapshot(topic, cut.covers, cut.boards), timeout);
        lastAt = cut.applied;
        written.incrementAndGet();
        if (LOG.isDebugEnabled()) {
            LOG.debug("Snapshot: wrote " + cut.boards.size() + " boards covering " + cut.covers);
        }
        return true;
    }

    private void snapshotQuietly() {
        try {
            snapshotIfChanged();
        } catch (RejectedExecutionException stopped) {
            // the pump has terminated: nothing more to snapshot
        } catch (IOException e) {
            LOG.warn("Snapshot: writing " + file.toAbsolutePath() + " failed (" + e.getMessage()
                    + "); the previous snapshot stays, a restart replays more of the log");
        } catch (Exception e) {
            LOG.warn("Snapshot: taking a snapshot failed: " + e);
        }
    }

    /**
     * Stops the schedule; a snapshot being written finishes (up to the timeout); then gives the
     * claim on the file up. Idempotent.
     */
    void close() {
        writer.shutdown();
        try {
            writer.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        FileClaim held = claim;
        if (held != null) {
            try {
                held.release();
            } catch (IOException e) {
                LOG.warn("Snapshot: releasing the claim on " + file.toAbsolutePath() + " failed: " + e);
            }
        }
    }

    private record Cut(long applied, List<LogPosition> covers, List<BoardState> boards) {
    }
}
