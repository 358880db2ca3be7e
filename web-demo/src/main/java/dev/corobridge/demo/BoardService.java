package dev.corobridge.demo;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.Queue;

import kotlinx.coroutines.CoroutineDispatcher;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.concurrent.Queues;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.context.CapturedContext;
import dev.corobridge.context.ContextPropagation;
import dev.corobridge.context.RestoredContext;
import dev.corobridge.demo.board.Applied;
import dev.corobridge.demo.board.BoardEvent;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.BoardListListener;
import dev.corobridge.demo.board.BoardListener;
import dev.corobridge.demo.board.BoardSnapshot;
import dev.corobridge.demo.board.BoardStore;
import dev.corobridge.demo.board.BoardSummary;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.board.WordStats;
import dev.corobridge.demo.journal.Journal;
import dev.corobridge.demo.journal.JournalClosedException;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpMetrics;
import dev.corobridge.ring.RingMetrics;
import dev.corobridge.ring.RingPool;

/**
 * The parts of every flow that both faces (the Java and the Kotlin controller) share: committing a
 * prepared change, event streams, statistics and live metrics.
 *
 * <p><b>Commit order.</b> {@link #commit} journals a change and applies it on the pump after it is
 * durable. The journal completes its promises in file order on one thread, and each completion
 * posts the apply to the pump from there, so changes are applied in journal order, which is the
 * order replay uses: the state a client saw acknowledged is the state a restart rebuilds.
 *
 * <p><b>Thread-safety.</b> All methods may be called from any thread; board state is only touched
 * in tasks posted to the pump.
 */
public final class BoardService {

    private static final Log LOG = LogFactory.getLog(BoardService.class);

    private final MessagePump pump;
    private final BoardStore store;
    private final Journal journal;
    private final RingPool ring;
    private final CoroutineDispatcher cpu;
    private final DemoProperties properties;

    public BoardService(MessagePump pump, BoardStore store, Journal journal, RingPool ring, CoroutineDispatcher cpu,
                        DemoProperties properties) {
        this.pump = pump;
        this.store = store;
        this.journal = journal;
        this.ring = ring;
        this.cpu = cpu;
        this.properties = properties;
    }

    public MessagePump pump() {
        return pump;
    }

    /** The pump-owned store: touch it only on the pump. */
    public BoardStore store() {
        return store;
    }

    /** The CPU dispatcher (statistics run there). */
    public CoroutineDispatcher cpu() {
        return cpu;
    }

    public DemoProperties properties() {
        return properties;
    }

    /**
     * Makes a prepared change durable, then applies it on the pump; completes with what was applied,
     * or fails with {@link BoardException} (the change lost a race, or the service cannot take it).
     */
    public Task<Applied> commit(Change change, HopTrace trace) {
        Promise<Applied> result = new Promise<>();
        // The journal's callbacks run on its ring, outside any task: they carry the committer's
        // context (MDC, trace) themselves, so the log lines of this change's fsync and apply have it.
        CapturedContext context = ContextPropagation.capture();
        // The apply is handed to the journal with the record, not registered after append returned:
        // a record durable before that registration would be applied from this thread, possibly
        // after later records — the live state would then differ from what a restart replays.
        journal.append(change, trace, durable -> {
            try (RestoredContext restored = context.restore()) {
                committed(change, durable, result, trace, context);
            }
        });
        return Task.of(result);
    }

    /** The journal's answer for one change, on its ring: apply it on the pump, or fail the commit. */
    private void committed(Change change, Outcome<Long> durable, Promise<Applied> result, HopTrace trace, CapturedContext context) {
        if (LOG.isDebugEnabled() && durable instanceof Outcome.Success<Long> at) {
            LOG.debug("journal: change durable at offset " + at.value() + " (written and fdatasync'ed)");
        }
        if (durable instanceof Outcome.Failure<Long>(JournalClosedException closed)) {
            // Not a failure of the service: it is stopping (503, like any request at shutdown).
            result.fail(new BoardException(BoardException.Kind.UNAVAILABLE, "the service is shutting down", closed));
            return;
        }
        if (!(durable instanceof Outcome.Success<Long>)) {
            result.settle(castFailure(durable));
            return;
        }
        // Posted from the journal's ring in file order (or refused at once): the pump applies in that order.
        try {
            pump.execute(context.wrap(() -> {
                if (trace != null) {
                    trace.record(pump.getName(), "apply");
                }
                logStep("apply");
                try {
                    result.complete(store.apply(change));
                } catch (RuntimeException e) {
                    result.fail(e);
                }
            }));
        } catch (RejectedExecutionException terminated) {
            result.fail(new BoardException(BoardException.Kind.UNAVAILABLE,
                    "the service is shutting down; the change is durable and shows after a restart"));
        }
    }

    /** A DEBUG line for a step of a request on the pump ({@code logging.level.dev.corobridge.demo=DEBUG}). */
    public static void logStep(String step) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("pump: " + step);
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> Outcome<T> castFailure(Outcome<?> o) {
        return (Outcome<T>) o; // a Failure or Cancelled carries no value
    }

    /** Runs {@code body} on the pump, recording a hop named {@code step}. */
    public <T> Task<T> onPump(HopTrace trace, String step, java.util.function.Function<BoardStore, T> body) {
        return Task.start(pump, () -> {
            if (trace != null) {
                trace.record(pump.getName(), step);
            }
            logStep(step);
            return body.apply(store);
        });
    }

    /**
     * A board's events as server-sent events: a {@code snapshot} first, then every change in
     * revision order. A subscriber more than {@link DemoProperties#eventBuffer()} events behind is
     * disconnected (it reconnects and starts from a fresh snapshot); the stream ends at shutdown.
     * Fails with {@link BoardException} (404) before the first event for an unknown board.
     */
    public Flux<ServerSentEvent<Object>> events(String boardId) {
        return Flux.defer(() -> {
            Queue<ServerSentEvent<Object>> buffer = Queues.<ServerSentEvent<Object>>get(properties.eventBuffer()).get();
            Sinks.Many<ServerSentEvent<Object>> sink = Sinks.many().unicast().onBackpressureBuffer(buffer);
            BoardListener listener = new BoardListener() {
                @Override
                public boolean onEvent(BoardEvent e) {
                    return emitOrEnd(sink, ServerSentEvent.builder((Object) e)
                            .id(Long.toString(e.revision())).event(e.type()).build());
                }

                @Override
                public void onClose() {
                    sink.tryEmitComplete();
                }
            };
            Task<BoardSnapshot> subscribed = Task.start(pump, () -> {
                BoardSnapshot s = store.subscribe(boardId, listener);
                // Emitted on the pump before any change can be: no gap, no repeat.
                sink.tryEmitNext(ServerSentEvent.builder((Object) s).id(Long.toString(s.revision()))
                        .event("snapshot").build());
                return s;
            });
            return Mono.fromFuture(subscribed.toCompletableFuture())
                    .thenMany(sink.asFlux())
                    .doFinally(signal -> unsubscribeOnPump(() -> store.unsubscribe(boardId, listener)));
        });
    }

    /** Emits {@code event}; a subscriber too far behind, or gone, has its stream ended (false). */
    private static boolean emitOrEnd(Sinks.Many<ServerSentEvent<Object>> sink, ServerSentEvent<Object> event) {
        if (sink.tryEmitNext(event).isFailure()) {
            sink.tryEmitComplete();
            return false;
        }
        return true;
    }

    /**
     * The board list as server-sent events: one {@code boards} event first (data: the list), then a
     * {@code board} event (data: the board's line of the list) whenever a board is created or its
     * notes change, in the order the changes are applied. Falling behind and shutdown end the stream
     * as for {@link #events(String)}; the client reconnects and gets a fresh list.
     */
    public Flux<ServerSentEvent<Object>> boardListEvents() {
        return Flux.defer(() -> {
            Queue<ServerSentEvent<Object>> buffer = Queues.<ServerSentEvent<Object>>get(properties.eventBuffer()).get();
            Sinks.Many<ServerSentEvent<Object>> sink = Sinks.many().unicast().onBackpressureBuffer(buffer);
            BoardListListener listener = new BoardListListener() {
                @Override
                public boolean onBoard(BoardSummary board) {
                    return emitOrEnd(sink, ServerSentEvent.builder((Object) board).event("board").build());
                }

                @Override
                public void onClose() {
                    sink.tryEmitComplete();
                }
            };
            Task<List<BoardSummary>> subscribed = Task.start(pump, () -> {
                List<BoardSummary> list = store.subscribeList(listener);
                // Emitted on the pump before any change can be: no gap, no repeat.
                sink.tryEmitNext(ServerSentEvent.builder((Object) list).event("boards").build());
                return list;
            });
            return Mono.fromFuture(subscribed.toCompletableFuture())
                    .thenMany(sink.asFlux())
                    .doFinally(signal -> unsubscribeOnPump(() -> store.unsubscribeList(listener)));
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

    /** Word statistics: a snapshot on the pump, counting on the CPU dispatcher, a check back on the pump. */
    public Task<WordStats> stats(String boardId, HopTrace trace) {
        return onPump(trace, "snapshot", s -> s.snapshot(boardId))
                .thenOn(cpu, snapshot -> {
                    trace.record("cpu", "count words");
                    return WordStats.of(snapshot);
                })
                .thenOn(pump, stats -> {
                    trace.record(pump.getName(), "check revision");
                    return store.revision(boardId) == stats.revision() ? stats : stats.stale();
                });
    }

    /**
     * The board as soon as its revision is above {@code afterRevision}, or as it is after
     * {@link DemoProperties#longPollTimeout()}. Cancelling the task (client gone) unregisters the waiter.
     * Fails with {@link BoardException} ({@code CONFLICT}) if the board has not reached
     * {@code afterRevision} (see {@link BoardStore#awaitRevision}).
     */
    public Task<BoardSnapshot> awaitChange(String boardId, long afterRevision, HopTrace trace) {
        Task<Promise<BoardSnapshot>> waiting = onPump(trace, "wait",
                s -> s.awaitRevision(boardId, afterRevision, properties.longPollTimeout()));
        Task<BoardSnapshot> result = waiting.thenComposeOn(Runnable::run, p -> p);
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

    /** Live metrics of the pump, the ring pool, the journal and the boards (one pump hop). */
    public Task<Map<String, Object>> live() {
        return Task.start(pump, () -> {
            int[] sw = store.subscriberAndWaiterCounts();
            long[] changes = store.changeCounts();
            PumpMetrics pm = pump.getMetrics();
            RingMetrics rm = ring.getMetrics();
            var jm = journal.metrics();
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
            // Every change in the journal, over every run: the replayed ones and those since the start.
            j.put("total", journal.replayed().size() + jm.changes());
            j.put("fsyncs", jm.fsyncs());
            j.put("fsyncsPerChange", jm.fsyncsPerChange());
            j.put("largestBatch", jm.largestBatch());
            j.put("bytes", jm.bytes());
            j.put("applied", changes[0]);
            j.put("rejected", changes[1]);
            j.put("broken", jm.broken());
            out.put("journal", j);
            return out;
        });
    }

    /** Long-poll timeout. */
    public Duration longPollTimeout() {
        return properties.longPollTimeout();
    }
}
