package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.BoardState;
import dev.corobridge.demo.board.BoardStore;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.board.Note;
import dev.corobridge.demo.changelog.ChangeLog;
import dev.corobridge.demo.changelog.ChangeLogClosedException;
import dev.corobridge.demo.changelog.ChangeLogHealth;
import dev.corobridge.demo.changelog.ChangeLogMetrics;
import dev.corobridge.demo.changelog.ChangeSink;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.demo.changelog.LoggedChange;
import dev.corobridge.pump.MessagePump;

/**
 * The limits (notes per board, boards) hold for writes that are under way together: each write is
 * checked when it is prepared, and until its change is applied the next one is prepared against a
 * state that does not show it yet. A log that holds every append until the test delivers (or
 * refuses) them lets many writes be in flight at once, as a journal's group commit does under load.
 * Only as many are taken as there is room for; the rest are refused with 409 at once, and a write
 * the log refuses gives its room back.
 */
class LimitsUnderConcurrentWritesTest {

    private static final Duration T = Duration.ofSeconds(30);

    private MessagePump pump;
    private HoldingLog log;
    private BoardStore store;
    private BoardService service;

    @BeforeEach
    void start() throws Exception {
        pump = MessagePump.start("limits-test");
        log = new HoldingLog();
        store = Task.start(pump, () -> new BoardStore(pump)).join(T);
    }

    @AfterEach
    void stop() throws Exception {
        pump.shutdown();
        pump.awaitTermination(T);
    }

    private void startService(List<BoardState> boards) throws Exception {
        Task.start(pump, () -> {
            store.importBoards(boards);
            return null;
        }).join(T);
        service = new BoardService(pump, store, log, null, null, null);
        service.start(T);
    }

    /** A board {@code id} holding {@code notes} notes. */
    private static BoardState board(String id, int notes) {
        List<Note> held = IntStream.rangeClosed(1, notes).mapToObj(i -> new Note("n" + i, id, "note " + i, 1)).toList();
        return new BoardState(id, "full-ish", notes, notes, held);
    }

    @Test
    void notesInFlightTogetherNeverOvershootTheBoardsLimit() throws Exception {
        startService(List.of(board("b1", BoardStore.MAX_NOTES_PER_BOARD - 2)));
        List<Task<Note>> writes = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            writes.add(service.addNoteAsync("b1", "late " + i, new HopTrace()));
        }
        log.awaitInFlight(writes);
        log.deliverAll();

        assertThat(outcomes(writes)).as("two fit; the others are refused as the board is full")
                .containsExactly("201", "201", "409", "409", "409", "409", "409", "409", "409", "409");
        assertThat(noteCount("b1")).isEqualTo(BoardStore.MAX_NOTES_PER_BOARD);
        assertThat(outcomeOf(service.addNoteAsync("b1", "one more", new HopTrace())))
                .as("full now, as after a restart").matches(LimitsUnderConcurrentWritesTest::full);
    }

    @Test
    void aWriteTheLogRefusesGivesItsRoomBack() throws Exception {
        startService(List.of(board("b1", BoardStore.MAX_NOTES_PER_BOARD - 1)));
        Task<Note> refused = service.addNoteAsync("b1", "refused", new HopTrace());
        log.awaitInFlight(List.of(refused));
        log.refuseAll();
        assertThat(outcomeOf(refused)).isInstanceOf(Outcome.Failure.class);

        Task<Note> taken = service.addNoteAsync("b1", "taken", new HopTrace());
        log.awaitInFlight(List.of(taken));
        log.deliverAll();
        assertThat(outcomeOf(taken)).isInstanceOf(Outcome.Success.class);
        assertThat(noteCount("b1")).isEqualTo(BoardStore.MAX_NOTES_PER_BOARD);
    }

    @Test
    void boardsInFlightTogetherNeverOvershootTheServicesLimit() throws Exception {
        startService(IntStream.rangeClosed(1, BoardStore.MAX_BOARDS - 1).mapToObj(i -> board("b" + i, 0)).toList());
        List<Task<?>> creates = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            creates.add(service.createBoardAsync("late " + i, new HopTrace()));
        }
        log.awaitInFlight(creates);
        log.deliverAll();

        assertThat(outcomes(creates)).containsExactly("201", "409", "409", "409", "409");
        assertThat(Task.start(pump, () -> store.list().size()).join(T)).isEqualTo(BoardStore.MAX_BOARDS);
    }

    private int noteCount(String board) throws Exception {
        return Task.start(pump, () -> store.snapshot(board).notes().size()).join(T);
    }

    /** The task's outcome once it has one (within 30 s). */
    private static Outcome<?> outcomeOf(Task<?> task) {
        try {
            task.join(T);
        } catch (Exception ignored) {
            // the outcome says what it was
        }
        assertThat(task.outcomeOrNull()).as("the write was answered").isNotNull();
        return task.outcomeOrNull();
    }

    private static boolean full(Outcome<?> o) {
        return o instanceof Outcome.Failure<?> f && f.error() instanceof BoardException b
                && b.kind() == BoardException.Kind.CONFLICT;
    }

    /** "201" for a write that was taken, "409" for one refused by a limit, in the order of the writes. */
    private static List<String> outcomes(List<? extends Task<?>> writes) throws Exception {
        List<String> out = new ArrayList<>();
        for (Task<?> w : writes) {
            Outcome<?> o = outcomeOf(w);
            if (o instanceof Outcome.Success<?>) {
                out.add("201");
            } else if (full(o)) {
                out.add("409");
            } else {
                throw new AssertionError("unexpected outcome " + o);
            }
        }
        return out;
    }

    /** A journal-like log (delivers, then acknowledges) that holds every append until told. */
    private static final class HoldingLog implements ChangeLog {

        private record Appended(Change change, long appendId, Promise<LogPosition> ack) {
        }

        private final List<Appended> held = new ArrayList<>();
        private ChangeSink sink;
        private long offset;

        @Override
        public Task<Void> start(List<LogPosition> from, ChangeSink sink) {
            sink.replay(List.of());
            this.sink = sink;
            return Task.completed(null);
        }

        @Override
        public synchronized Task<LogPosition> append(Change change, long appendId, HopTrace trace) {
            Promise<LogPosition> ack = new Promise<>();
            held.add(new Appended(change, appendId, ack));
            return Task.from(ack);
        }

        /** Waits until each of {@code writes} is either held here or answered (refused before its append). */
        void awaitInFlight(List<? extends Task<?>> writes) throws InterruptedException {
            long deadline = System.nanoTime() + T.toNanos();
            while (heldCount() + writes.stream().filter(Task::isDone).count() < writes.size()) {
                assertThat(System.nanoTime()).as("every write reached the log or was refused").isLessThan(deadline);
                Thread.sleep(5);
            }
        }

        private synchronized int heldCount() {
            return held.size();
        }

        /** Writes and delivers every held append, in order, then acknowledges them. */
        synchronized void deliverAll() {
            List<LoggedChange> batch = new ArrayList<>();
            for (Appended a : held) {
                batch.add(new LoggedChange(a.change(), new LogPosition(0, offset++), a.appendId()));
            }
            sink.apply(batch);
            for (int i = 0; i < held.size(); i++) {
                held.get(i).ack().complete(batch.get(i).position());
            }
            held.clear();
        }

        /** Refuses every held append: none is written. */
        synchronized void refuseAll() {
            held.forEach(a -> a.ack().fail(new ChangeLogClosedException("closing")));
            held.clear();
        }

        @Override
        public ChangeLogMetrics metrics() {
            return new ChangeLogMetrics(offset, 0, 0, 0, 0, 0, false);
        }

        @Override
        public ChangeLogHealth health() {
            return new ChangeLogHealth(true, Map.of());
        }

        @Override
        public void close(Duration timeout) {
        }
    }
}
