package dev.corobridge.demo;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.function.Function;

import kotlinx.coroutines.CoroutineDispatcher;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.publisher.Flux;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.demo.board.Applied;
import dev.corobridge.demo.board.BoardEvent;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.BoardListListener;
import dev.corobridge.demo.board.BoardListener;
import dev.corobridge.demo.board.BoardSnapshot;
import dev.corobridge.demo.board.BoardStore;
import dev.corobridge.demo.board.BoardSummary;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.board.Note;
import dev.corobridge.demo.board.SubscriberFellBehindException;
import dev.corobridge.demo.board.WordStats;
import dev.corobridge.demo.changelog.ChangeLog;
import dev.corobridge.demo.changelog.ChangeLogMetrics;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpMetrics;
import dev.corobridge.reactor.TaskMono;
import dev.corobridge.ring.RingMetrics;
import dev.corobridge.ring.RingPool;

/**
 * The notes board's service boundary: every operation both faces offer (the Java functional routes
 * and the Kotlin {@code coRouter} routes), each one call that returns a {@link Task} (Kotlin: the
 * {@code suspend} functions of {@code SuspendingBoardService.kt}, which await these), plus the two
 * event streams. Behind it, and nowhere else: the pump that owns the boards, the store, the change
 * log, and the steps a request makes between them, each recorded in the request's {@link HopTrace}.
 *
 * <p><b>A change</b> ({@code createBoardAsync}, {@code addNoteAsync}, {@code editNoteAsync},
 * {@code deleteNoteAsync}) crosses the boundary once in and once out: it is prepared on the pump
 * (checked, ids assigned: {@code pump:prepare}), appended to the {@link ChangeLog} (the journal:
 * {@code ring:journal} once written and {@code fdatasync}'ed), and applied on the pump when the log
 * delivers it ({@code pump:apply}); its task completes with what was applied, or fails with
 * {@link BoardException} (the change lost a race, or the service cannot take it).
 *
 * <p><b>Commit order.</b> The store is changed only by the log's deliveries, which come in log order
 * and are applied in that order ({@link ChangeApplier}), the order a replay uses: the state a client
 * saw acknowledged is the state a restart rebuilds.
 *
 * <p><b>Cancellation.</b> Cancelling a task (the client went away) withdraws what it waits for: a
 * long poll's waiter, a step not yet run. A change already handed to the log is applied all the
 * same (the log and the live state never differ); only the answer is dropped.
 *
 * <p><b>Thread-safety.</b> All methods may be called from any thread; board state is only touched
 * in tasks posted to the pump. Tasks complete on the pump (or, for a refusal, where it was decided);
 * the faces hand their answers to the request's event loop.
 */
public final class BoardService {

    /** Runs a step on the thread that completed the step before (no extra hop). */
    private static final Executor SAME_THREAD = Runnable::run;

    private final MessagePump pump;
    private final BoardStore store;
    private final ChangeLog log;
    private final ChangeApplier applier;
    /** Cluster mode's snapshots; {@code null} for the journal. */
    private final Snapshotter snapshots;
    private final RingPool ring;
    private final CoroutineDispatcher cpu;
    private final DemoProperties properties;

    /**
     * A service over {@code store} (owned by {@code pump}), whose changes {@code log} makes durable;
     * {@link #start} it before the first request.
     *
     * @param ring       the ring pool (for the live metrics)
     * @param cpu        where statistics are counted
     * @param properties the long poll's timeout and the streams' buffer
     */
    public BoardService(MessagePump pump, BoardStore store, ChangeLog log, RingPool ring, CoroutineDispatcher cpu,
                        DemoProperties properties) {
        this.pump = pump;
        this.store = store;
        this.log = log;
        boolean cluster = properties != null && properties.clusterMode();
        this.applier = cluster ? new ChangeApplier(pump, store, log, properties.kafka().appendTimeout())
                : new ChangeApplier(pump, store, log);
        this.snapshots = cluster ? new Snapshotter(pump, store, applier, ring, properties.snapshotFile(),
                properties.kafka().topic(), properties.kafka().snapshotInterval(), properties.ioTimeout()) : null;
        this.ring = ring;
        this.cpu = cpu;
        this.properties = properties;
    }

    /**
     * Replays the change log into the store, then applies every change that becomes durable. Blocks
     * until the replay is applied or {@code timeout} passes (start-up; never call it on the pump).
     *
     * @throws Exception if the log cannot be replayed in time
     */
    public void start(Duration timeout) throws Exception {
        if (snapshots == null) {
            applier.start(timeout);
            return;
        }
        try {
            applier.start(snapshots.load(), timeout); // load claims the snapshot first
        } catch (Exception | Error e) {
            snapshots.close(); // gives the claim up: the start failed
            throw e;
        }
        snapshots.schedule();
    }

    /** Stops cluster mode's snapshots (before the change log closes); nothing for the journal. */
    public void stopSnapshots() {
        if (snapshots != null) {
            snapshots.close();
        }
    }

    /**
     * Cluster mode: writes a snapshot now unless the last one covers everything applied (for tests
     * and operators). Nothing for the journal.
     */
    public void snapshotNow() throws Exception {
        if (snapshots != null) {
            snapshots.snapshotNow();
        }
    }

    // ------------------------------------------------------------------ changes

    /** A new board; completes with it (revision 0, no notes). */
    public Task<BoardSnapshot> createBoardAsync(String name, HopTrace trace) {
        return change(trace, s -> s.prepareCreateBoard(name)).thenOn(SAME_THREAD, Applied::board);
    }

    /** A new note on a board; completes with it (version 1). */
    public Task<Note> addNoteAsync(String boardId, String text, HopTrace trace) {
        return change(trace, s -> s.prepareAddNote(boardId, text)).thenOn(SAME_THREAD, Applied::note);
    }

    /**
     * A note's new text, if its version is still {@code expectedVersion}; completes with the note
     * as edited.
     */
    public Task<Note> editNoteAsync(String boardId, String noteId, String text, long expectedVersion, HopTrace trace) {
        return change(trace, s -> s.prepareEditNote(boardId, noteId, text, expectedVersion))
                .thenOn(SAME_THREAD, Applied::note);
    }

    /**
     * Deletes a note at {@code expectedVersion} ({@link Change#ANY_VERSION}: whatever its version);
     * completes with the note as it was last.
     */
    public Task<Note> deleteNoteAsync(String boardId, String noteId, long expectedVersion, HopTrace trace) {
        return change(trace, s -> s.prepareDeleteNote(boardId, noteId, expectedVersion)).thenOn(SAME_THREAD, Applied::note);
    }

    /**
     * Prepares a change on the pump and commits it (made durable by the log, applied on the pump).
     * The prepare and the commit's start (the change's room under the limits, its append) are one
     * pump step: no other change is prepared in between, and a request cancelled in the meantime
     * cannot leave room held for a change that was never appended.
     */
    private Task<Applied> change(HopTrace trace, Function<BoardStore, Change> prepare) {
        return onPump(trace, "prepare", s -> applier.commit(prepare.apply(s), trace))
                .thenComposeOn(SAME_THREAD, committed -> committed);
    }

    // ------------------------------------------------------------------ reads

    /** The board list, in creation order. */
    public Task<List<BoardSummary>> listAsync(HopTrace trace) {
        return onPump(trace, "list", BoardStore::list);
    }

    /** A board with its notes (one pump hop). */
    public Task<BoardSnapshot> boardAsync(String boardId, HopTrace trace) {
        return onPump(trace, "snapshot", s -> s.snapshot(boardId));
    }

    /** One note. */
    public Task<Note> noteAsync(String boardId, String noteId, HopTrace trace) {
        return onPump(trace, "read", s -> s.note(boardId, noteId));
    }

    /** Runs {@code body} on the pump, recording the step {@code pump:step}. */
    private <T> Task<T> onPump(HopTrace trace, String step, Function<BoardStore, T> body) {
        return Task.start(pump, () -> {
            PumpSteps.record(pump, trace, step);
            return body.apply(store);
        });
    }

    /**
     * Word statistics: a snapshot on the pump, counting on the CPU dispatcher, a check back on the
     * pump ({@link WordStats#current()} says whether the board was still at that revision).
     */
    public Task<WordStats> statsAsync(String boardId, HopTrace trace) {
        return onPump(trace, "snapshot", s -> s.snapshot(boardId))
                .thenOn(cpu, snapshot -> {
                    if (trace != null) {
                        trace.record("cpu", "count words");
                    }
                    return WordStats.of(snapshot);
                })
                .thenOn(pump, stats -> {
                    PumpSteps.record(pump, trace, "check revision");
                    return store.revision(boardId) == stats.revision() ? stats : stats.stale();
                });
    }

    /**
     * The board as soon as its revision is above {@code afterRevision}, or as it is after
     * {@link DemoProperties#longPollTimeout()}. Cancelling the task (client gone) unregisters the waiter.
     * Fails with {@link BoardException} ({@code CONFLICT}) if the board has not reached
     * {@code afterRevision} (see {@link BoardStore#awaitRevision}).
     */
    public Task<BoardSnapshot> awaitChangeAsync(String boardId, long afterRevision, HopTrace trace) {
        Task<Promise<BoardSnapshot>> waiting = onPump(trace, "wait",
                s -> s.awaitRevision(boardId, afterRevision, properties.longPollTimeout()));
        Task<BoardSnapshot> result = waiting.thenComposeOn(SAME_THREAD, p -> p);
        // Client gone (the adapter cancels the task): withdraw the waiter, whichever finishes last.
        Runnable withdraw = () -> {
            if (result.outcomeOrNull() instanceof Outcome.Cancelled<BoardSnapshot>
                    && waiting.outcomeOrNull() instanceof Outcome.Success<Promise<BoardSnapshot>> s) {
                s.value().cancel();
            }
        };
        result.onComplete(o -> withdraw.run());
        waiting.onComplete(o -> withdraw.run());
        return result;
    }

    // ------------------------------------------------------------------ streams

    /**
     * A board's events as server-sent events: a {@code snapshot} first, then every change in
     * revision order. A subscriber more than {@link DemoProperties#eventBuffer()} events behind has
     * its stream fail with {@link SubscriberFellBehindException} (the web layer disconnects it; it
     * reconnects and starts from a fresh snapshot); the stream ends at shutdown.
     * Fails with {@link BoardException} (404) before the first event for an unknown board.
     */
    public Flux<ServerSentEvent<Object>> events(String boardId) {
        return stream(feed -> new BoardListener() {
            @Override
            public boolean onEvent(BoardEvent e) {
                return feed.offer(ServerSentEvent.builder((Object) e)
                        .id(Long.toString(e.revision())).event(e.type()).build());
            }

            @Override
            public void onClose() {
                feed.end();
            }
        }, listener -> {
            BoardSnapshot s = store.subscribe(boardId, listener);
            return ServerSentEvent.builder((Object) s).id(Long.toString(s.revision())).event("snapshot").build();
        }, listener -> store.unsubscribe(boardId, listener));
    }

    /**
     * The board list as server-sent events: one {@code boards} event first (data: the list), then a
     * {@code board} event (data: the board's line of the list) whenever a board is created or its
     * notes change, in the order the changes are applied. Falling behind and shutdown end the stream
     * as for {@link #events(String)}; the client reconnects and gets a fresh list.
     */
    public Flux<ServerSentEvent<Object>> boardListEvents() {
        return stream(feed -> new BoardListListener() {
            @Override
            public boolean onBoard(BoardSummary board) {
                return feed.offer(ServerSentEvent.builder((Object) board).event("board").build());
            }

            @Override
            public void onClose() {
                feed.end();
            }
        }, listener -> ServerSentEvent.builder((Object) store.subscribeList(listener)).event("boards").build(),
                store::unsubscribeList);
    }

    /**
     * A stream fed on the pump by a listener of the store: {@code subscribe} registers the listener
     * and returns the first event, which is emitted on the pump before any change can be (no gap,
     * no repeat); the subscription ends on the pump when the stream does. The {@link EventFeed}
     * buffers {@link DemoProperties#eventBuffer()} events; a listener whose subscriber fell behind
     * fails its stream at once and leaves.
     */
    private <L> Flux<ServerSentEvent<Object>> stream(Function<EventFeed, L> listenerOf,
                                                     Function<L, ServerSentEvent<Object>> subscribe,
                                                     Consumer<L> unsubscribe) {
        return Flux.defer(() -> {
            EventFeed feed = new EventFeed(properties.eventBuffer());
            L listener = listenerOf.apply(feed);
            Task<Void> subscribed = Task.start(pump, () -> {
                feed.offer(subscribe.apply(listener));
                return null;
            });
            return TaskMono.toMono(subscribed)
                    .thenMany(feed.flux())
                    .doFinally(signal -> unsubscribeOnPump(() -> unsubscribe.accept(listener)));
        });
    }

    /** Ends a stream's subscription on the pump; once the pump has terminated its listeners are gone anyway. */
    private void unsubscribeOnPump(Runnable unsubscribe) {
        try {
            pump.execute(unsubscribe);
        } catch (RejectedExecutionException terminated) {
            // the pump has terminated: its boards and their listeners are gone
        }
    }

    // ------------------------------------------------------------------ metrics

    /**
     * Live metrics of the pump, the ring pool, the change log (under {@code journal}; its commits as
     * {@code fsyncs}) and the boards (one pump hop, not traced).
     */
    public Task<Map<String, Object>> liveMetricsAsync() {
        return Task.start(pump, () -> {
            int[] sw = store.subscriberAndWaiterCounts();
            long[] changes = store.changeCounts();
            PumpMetrics pm = pump.getMetrics();
            RingMetrics rm = ring.getMetrics();
            ChangeLogMetrics jm = log.metrics();
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("transport", rm.transport() == dev.corobridge.ring.Transport.IO_URING ? "io_uring" : "nio");
            out.put("fallbackReason", rm.fallbackReason() == null || rm.fallbackReason().isEmpty() ? null : rm.fallbackReason());
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("name", pm.pumpName());
            p.put("queueDepth", pm.queueDepth());
            p.put("dispatches", pm.dispatches());
            p.put("wakeups", pm.wakeups());
            p.put("wakeupsPerDispatch", pm.wakeupsPerDispatch());
            p.put("queueLatencyP99Micros", pm.queueLatencyP99Nanos() / 1000.0);
            p.put("subscribers", sw[0]);
            p.put("waiters", sw[1]);
            out.put("pump", p);
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("rings", rm.rings());
            r.put("inFlight", rm.inFlight());
            r.put("operations", rm.operations().values().stream().mapToLong(Long::longValue).sum());
            r.put("errors", rm.errors().values().stream().mapToLong(Long::longValue).sum());
            out.put("ring", r);
            Map<String, Object> j = new LinkedHashMap<>();
            j.put("changes", jm.changes());
            // Every change in the log, over every run: the replayed ones and those since the start.
            j.put("total", jm.replayed() + jm.changes());
            j.put("fsyncs", jm.commits());
            j.put("fsyncsPerChange", jm.commitsPerChange());
            j.put("largestBatch", jm.largestBatch());
            j.put("bytes", jm.bytes());
            j.put("applied", changes[0]);
            j.put("rejected", changes[1]);
            j.put("broken", jm.broken());
            out.put("journal", j);
            Map<String, Object> cluster = log.clusterStatus();
            if (cluster != null) {
                Map<String, Object> c = new LinkedHashMap<>(cluster);
                c.put("applied", applier.appliedPositions().stream()
                        .map(at -> Map.of("partition", at.partition(), "offset", at.offset())).toList());
                c.put("snapshots", snapshots == null ? 0 : snapshots.written());
                out.put("cluster", c);
            }
            return out;
        });
    }
}
