package dev.corobridge.demo;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.slf4j.MDC;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.context.CapturedContext;
import dev.corobridge.context.ContextPropagation;
import dev.corobridge.context.RestoredContext;
import dev.corobridge.demo.board.Applied;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.BoardStore;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.ChangeLog;
import dev.corobridge.demo.changelog.ChangeLogClosedException;
import dev.corobridge.demo.changelog.ChangeSink;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.demo.changelog.LoggedChange;
import dev.corobridge.demo.changelog.RateLimitedWarning;
import dev.corobridge.pump.MessagePump;

/**
 * The board side of the {@link ChangeLog}: the {@link ChangeSink} that applies every change the log
 * delivers to the store, on the pump, in log order, and the commits of this process's writers,
 * each answered once its own change has been applied.
 *
 * <p><b>Matching a writer to its change.</b> {@link #commit} gives the change an append id, keeps
 * the writer (its promise, trace and context) under that id, and appends. When the log delivers a
 * change with that id, the pump applies it and completes the writer with what was applied, or with
 * the rejection when the change lost a race. When the append fails, the change is never delivered
 * and the writer fails at once. For a log whose acknowledgement and delivery are separate events
 * (Kafka's producer callback and its consumer) either may come first; a writer is taken out of
 * the map exactly once, by whichever finds it. A change from elsewhere (another replica) finds no
 * writer and is applied all the same.
 *
 * <p><b>Ordering.</b> The log calls the sink in log order, one call at a time; each call posts one
 * task to the pump, which runs the tasks of one poster in the order they were posted, so the store
 * applies in log order, the order a replay uses: the state a client saw acknowledged is the state a
 * restart rebuilds.
 *
 * <p><b>A log whose acknowledgement and delivery are separate events</b> (Kafka: the producer's
 * acknowledgement and this replica's consumer, in either order) is given an apply wait: a writer
 * whose change is durable but not applied here within it fails with {@code UNAVAILABLE} (503), so
 * a stuck consumer never holds a request open; the change is applied all the same once delivered.
 * Such a writer is answered once both happened (its trace then shows both steps). The journal
 * delivers before it acknowledges, so its writers are answered at the apply, on the pump.
 *
 * <p><b>Positions.</b> The pump keeps, per partition, the offset after the last change applied
 * (or replayed): what a snapshot of the store covers.
 *
 * <p><b>Thread-safety.</b> {@link #commit} from any thread; the sink from the log's delivery thread;
 * the waiting writers live in a concurrent map. The store and the replay's counts are touched only
 * on the pump. A writer's promise is completed on the pump (or where its append failed).
 */
final class ChangeApplier implements ChangeSink {

    private static final Log LOG = LogFactory.getLog(BoardService.class);

    private final MessagePump pump;
    private final BoardStore store;
    private final ChangeLog log;
    private final AtomicLong appendIds = new AtomicLong(LoggedChange.NOT_APPENDED_HERE);
    /** Changes of another producer that break the rules: a WARN line at most every 10 s. */
    private final RateLimitedWarning foreignWarning = new RateLimitedWarning(LOG, 10, TimeUnit.SECONDS);
    private final ConcurrentHashMap<Long, Writer> writers = new ConcurrentHashMap<>();
    /** How long a writer whose change is durable waits for its apply here; {@code null}: no limit. */
    private final Duration applyWait;
    // Counts of the replay and the positions applied: pump only.
    private int replayed;
    private int replayRejected;
    private final Map<Integer, Long> nextOffsets = new TreeMap<>();
    private long appliedChanges;

    ChangeApplier(MessagePump pump, BoardStore store, ChangeLog log) {
        this(pump, store, log, null);
    }

    ChangeApplier(MessagePump pump, BoardStore store, ChangeLog log, Duration applyWait) {
        this.pump = pump;
        this.store = store;
        this.log = log;
        this.applyWait = applyWait;
    }

    /**
     * Replays the log into the store (on the pump), then takes every change that becomes durable.
     * Blocks until the replay is applied (start-up; never call it on the pump).
     */
    void start(Duration timeout) throws Exception {
        start(List.of(), timeout);
    }

    /**
     * As {@link #start(Duration)}, the replay beginning at {@code from} (the positions a snapshot
     * loaded into the store covers).
     */
    void start(List<LogPosition> from, Duration timeout) throws Exception {
        long began = System.nanoTime();
        Task.start(pump, () -> {
            for (LogPosition p : from) {
                nextOffsets.put(p.partition(), p.offset());
            }
            return null;
        }).join(timeout);
        log.start(from, this).join(timeout);
        int[] counts = Task.start(pump, () -> new int[] {replayed, replayRejected}).join(timeout);
        LOG.info("Replayed " + (counts[0] + counts[1]) + " changes (" + counts[1] + " rejected as they were live) in "
                + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began) + " ms");
    }

    /**
     * Makes a prepared change durable; completes once the pump has applied it, with what was
     * applied, or fails with {@link BoardException} (the change lost a race, or the service cannot
     * take it). Cancelling the task only drops the answer: the change, once appended, is applied.
     * Called on the pump, in the step that prepared the change: the change is counted against the
     * store's limits from here ({@link BoardStore#reserve}) until it is applied or refused by the log.
     */
    Task<Applied> commit(Change change, HopTrace trace) {
        try {
            store.reserve(change); // on the pump, right after the prepare: the limits count changes under way
        } catch (BoardException full) {
            return Task.failed(full);
        }
        long id = appendIds.incrementAndGet();
        // The apply runs in a pump task of the log's delivery, outside this request's tasks: the
        // writer carries its context (MDC, trace id) itself, so the apply's log line has it.
        Writer writer = new Writer(trace, ContextPropagation.capture());
        writers.put(id, writer);
        log.append(change, id, trace).onComplete(durable -> {
            writer.acknowledged.settle(durable);
            if (!(durable instanceof Outcome.Success<LogPosition>)) {
                Writer refused = writers.remove(id);
                if (refused != null) {
                    releaseOnPump(change); // never applied here: its room is free again
                    refused.result.settle(refusal(durable));
                }
            } else if (applyWait != null && writers.containsKey(id)) {
                awaitApply(id);
            }
        });
        return Task.from(writer.result);
    }

    /** Gives back the room a change of a writer here held ({@link BoardStore#reserve}). */
    private void releaseOnPump(Change change) {
        try {
            pump.execute(() -> store.release(change));
        } catch (RejectedExecutionException terminated) {
            // the pump has terminated: no change is prepared any more
        }
    }

    /** Fails the writer of a durable change if it is not applied here within the apply wait. */
    private void awaitApply(long id) {
        try {
            pump.schedule(() -> {
                Writer late = writers.remove(id);
                if (late != null) {
                    late.result.fail(new BoardException(BoardException.Kind.UNAVAILABLE, "the change is durable but this "
                            + "replica has not applied it within " + applyWait + "; it shows once applied"));
                }
            }, applyWait);
        } catch (RejectedExecutionException terminated) {
            // the pump has terminated: the apply cannot come; the shutdown answers the writer
        }
    }

    /** Why a change the log did not take fails its writer: a closing log is a service shutting down (503). */
    @SuppressWarnings("unchecked")
    private static Outcome<Applied> refusal(Outcome<LogPosition> outcome) {
        if (outcome instanceof Outcome.Failure<LogPosition>(ChangeLogClosedException closed)) {
            return new Outcome.Failure<>(new BoardException(BoardException.Kind.UNAVAILABLE,
                    "the service is shutting down", closed));
        }
        return (Outcome<Applied>) (Outcome<?>) outcome; // a Failure or Cancelled carries no value
    }

    @Override
    public void replay(List<LoggedChange> changes) {
        pump.execute(() -> {
            for (LoggedChange c : changes) {
                if (store.replay(c.change(), c.position().partition())) {
                    replayed++;
                } else {
                    replayRejected++;
                }
                advance(c.position());
            }
        });
    }

    @Override
    public void apply(List<LoggedChange> changes) {
        try {
            pump.execute(() -> applyOnPump(changes));
        } catch (RejectedExecutionException terminated) {
            for (LoggedChange c : changes) {
                Writer w = c.appendedHere() ? writers.remove(c.appendId()) : null;
                if (w != null) {
                    w.result.fail(new BoardException(BoardException.Kind.UNAVAILABLE,
                            "the service is shutting down; the change is durable and shows after a restart"));
                }
            }
        }
    }

    /** On the pump: applies a delivery in log order, answering the writers waiting here. */
    private void applyOnPump(List<LoggedChange> changes) {
        for (LoggedChange c : changes) {
            advance(c.position());
            Writer w = c.appendedHere() ? writers.remove(c.appendId()) : null;
            if (w == null) {
                applyUnanswered(c);
                continue;
            }
            try (RestoredContext restored = w.context.restore()) {
                PumpSteps.record(pump, w.trace, "apply");
                Applied applied;
                try {
                    applied = store.apply(c.change(), c.position().partition());
                } finally {
                    store.release(c.change()); // applied (or refused): counted by the store itself now
                }
                if (applyWait == null || w.acknowledged.isDone()) {
                    w.result.complete(applied);
                } else {
                    // Applied, whatever the acknowledgement says when it comes (a timed-out produce
                    // may still have reached the log, as this change did).
                    w.acknowledged.onComplete(o -> w.result.complete(applied));
                }
            } catch (RuntimeException e) {
                w.result.fail(e);
            }
        }
    }

    /** Pump only: the change at {@code p} is applied (or replayed). */
    private void advance(LogPosition p) {
        nextOffsets.merge(p.partition(), p.offset() + 1, Math::max);
        appliedChanges++;
    }

    /**
     * Pump only: per partition, the offset after the last change applied or replayed (what the
     * store covers), in partition order.
     */
    List<LogPosition> appliedPositions() {
        pump.checkAccess();
        List<LogPosition> out = new ArrayList<>(nextOffsets.size());
        nextOffsets.forEach((partition, offset) -> out.add(new LogPosition(partition, offset)));
        return out;
    }

    /** Pump only: changes applied or replayed since start (a snapshot is due when it moved). */
    long appliedChanges() {
        pump.checkAccess();
        return appliedChanges;
    }

    /**
     * A change nobody here waits for (appended elsewhere, or here before a restart): applied, or
     * rejected if it lost a race. A change carrying its request's trace id is applied under it, so
     * the apply's log line on every replica belongs to that request.
     */
    private void applyUnanswered(LoggedChange logged) {
        Change change = logged.change();
        MDC.MDCCloseable traced = logged.traceId() == null ? null : MDC.putCloseable("traceId", logged.traceId());
        try {
            if (LOG.isDebugEnabled()) {
                LOG.debug("pump: apply (from the log at " + logged.position().partition() + "/"
                        + logged.position().offset() + ")");
            }
            store.apply(change, logged.position().partition());
        } catch (BoardException rejected) {
            // Lost a race, as it did (or will) wherever it was appended; the store counts it. A change
            // this service would never make came from another producer on a cluster's topic.
            if (rejected.kind() == BoardException.Kind.INVALID) {
                foreignWarning.warn("Skipped the change at " + logged.position().partition() + "/" + logged.position().offset()
                        + " of the log: " + rejected.getMessage(), null);
            }
        } catch (RuntimeException e) {
            LOG.error("Applying a durable change failed: " + change, e);
        } finally {
            if (traced != null) {
                traced.close();
            }
        }
    }

    /** A writer waiting for its change: its answer, and where the apply records itself. */
    private record Writer(HopTrace trace, CapturedContext context, Promise<Applied> result,
                          Promise<LogPosition> acknowledged) {
        Writer(HopTrace trace, CapturedContext context) {
            this(trace, context, new Promise<>(), new Promise<>());
        }
    }
}
