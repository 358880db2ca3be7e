package dev.corobridge.demo.changelog;

import java.time.Duration;
import java.util.List;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Task;
import dev.corobridge.demo.board.Change;

/**
 * Where the boards' changes become durable, in one order: the only view of durability the board
 * code has. The io_uring journal ({@code dev.corobridge.demo.journal.Journal}) is the default; a
 * log on a distributed engine plugs in behind the same calls.
 *
 * <p><b>The model: the log drives the apply.</b> A writer {@linkplain #append appends} a change and
 * gets a task that completes with the change's {@link LogPosition} once it is durable. The log
 * itself delivers every durable change, its own and any other appender's, to one
 * {@link ChangeSink}, in log order; the sink applies them (the board code: on the pump). So the
 * live state is built exactly as a replay builds it, and a writer learns that its change was
 * applied from the sink, by the {@code appendId} it gave {@link #append}, never from a callback of
 * its own append. For the journal the sink is called by the group commit, in file order, after the
 * {@code fdatasync}. For Apache Kafka (a command topic partitioned by board id, read in full by
 * every replica): the append is a produce whose record carries the replica and the append id in
 * its headers, positions are partition offsets, and the sink is fed by the replica's consumer; the
 * replica that received a write answers it once its own consumer delivered, and its pump applied,
 * that command.
 *
 * <p><b>Ordering.</b> Changes reach the sink in log order (for a partitioned log, each partition's
 * order, so each board's); the replay at {@link #start} comes first. A restart replays the same
 * changes in the same order, so it rebuilds the state the service acknowledged.
 *
 * <p><b>Thread-safety.</b> Implementations are thread-safe: {@link #append}, {@link #metrics} and
 * {@link #health} may be called from any thread; {@link #start} once, before the appends whose
 * changes are to be delivered; {@link #close} from any thread (only the first call does anything).
 * Tasks complete on the log's own threads. Appends made by one thread keep their order in the log.
 */
public interface ChangeLog {

    /**
     * Starts delivering to {@code sink}: first the changes that are durable now, from {@code from}
     * on ({@link ChangeSink#replay}), then each change that becomes durable
     * ({@link ChangeSink#apply}). The task completes once the replay has been handed to the sink.
     *
     * @param from for each partition, the position the replay starts at; partitions not named are
     *             replayed from their beginning (so an empty list replays everything)
     */
    Task<Void> start(List<LogPosition> from, ChangeSink sink);

    /**
     * Makes {@code change} durable. The task completes with its position once it is durable (by
     * then, or soon after, the log delivers it to the sink with {@code appendId}). It fails with
     * {@link ChangeLogClosedException} when the log is closing or closed (the change is not
     * written), and with the log's own failure when it cannot store changes. Cancelling the task
     * only stops that wait: a change handed to the log is made durable and delivered all the same.
     *
     * <p>The board code calls it on the pump, right after the change is prepared, so that the log's
     * order is the order changes were prepared in: it must not block. A log whose client may block
     * (a Kafka producer waiting for metadata or buffer space) hands the append to a thread of its own.
     *
     * @param appendId  the appender's id for this change, not {@link LoggedChange#NOT_APPENDED_HERE}
     *                  and unique among the appends of this process since the log started: the
     *                  sink gets the change with it
     * @param trace     if not {@code null}, gets a step on the thread that saw the change durable
     */
    Task<LogPosition> append(Change change, long appendId, HopTrace trace);

    /** The log's counters now. */
    ChangeLogMetrics metrics();

    /** What the service's health shows of the log now. */
    ChangeLogHealth health();

    /**
     * What {@code /api/live} shows of a replicated log under {@code cluster} (replica, broker
     * connectivity, per-partition offsets and lag), or {@code null} for a log of one process (the
     * journal), which has no cluster to show.
     */
    default java.util.Map<String, Object> clusterStatus() {
        return null;
    }

    /**
     * Refuses new appends, lets those already taken become durable (up to {@code timeout}), then
     * releases the log. Appends still waiting after {@code timeout} fail with
     * {@link ChangeLogClosedException}. Only the first call does this; later ones return at once.
     */
    void close(Duration timeout);
}
