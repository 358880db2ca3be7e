package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import dev.corobridge.demo.board.BoardException;
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
 * The service behind a change log whose acknowledgement and delivery are separate events, as a
 * distributed log's are (Kafka: the producer's callback, the consumer's records): for each append
 * the log either acknowledges before it delivers, delivers before it acknowledges, refuses (closed:
 * never delivered), or delivers and then fails the append (a produce that timed out but was
 * written). Writers on many threads, deliveries in batches of random sizes on the log's own thread.
 * Every writer is answered exactly once and by its own change: with the note when its change was
 * acknowledged and applied, with a 503 when the log refused it, with the log's failure otherwise;
 * the store holds exactly the delivered changes, in delivery order. No routes, no store code
 * changed for this log: only {@link ChangeLog}.
 */
class ChangeApplierTest {

    private static final Duration T = Duration.ofSeconds(30);
    private static final int WRITERS = 8;
    private static final int NOTES_EACH = 50;

    @Test
    void everyWriterIsAnsweredByItsOwnChangeWhicheverOfAckAndDeliveryComesFirst() throws Exception {
        MessagePump pump = MessagePump.start("applier-test");
        DetachedLog log = new DetachedLog(new Random(2203));
        try {
            BoardStore store = Task.start(pump, () -> new BoardStore(pump)).join(T);
            BoardService service = new BoardService(pump, store, log, null, null, null);
            service.start(T);
            Thread broker = new Thread(() -> log.run(1 + WRITERS * NOTES_EACH), "log-delivery");
            broker.start();
            String board = service.createBoardAsync("detached", null).join(T).id();
            ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
            Map<String, Task<Note>> tasks = new ConcurrentHashMap<>(); // by the text each writer sent
            try {
                List<Future<?>> started = new ArrayList<>();
                for (int w = 0; w < WRITERS; w++) {
                    int writer = w;
                    started.add(writers.submit(() -> {
                        for (int i = 0; i < NOTES_EACH; i++) {
                            String text = "w" + writer + " #" + i;
                            tasks.put(text, service.addNoteAsync(board, text, new HopTrace()));
                        }
                    }));
                }
                for (Future<?> f : started) {
                    f.get(30, TimeUnit.SECONDS);
                }
            } finally {
                writers.shutdownNow();
            }
            broker.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(broker.isAlive()).as("the log delivered every append").isFalse();
            assertThat(log.failure).as("the log's own thread").isNull();

            List<String> answered = new ArrayList<>();
            int refused = 0;
            int failed = 0;
            for (Map.Entry<String, Task<Note>> t : tasks.entrySet()) {
                switch (waitFor(t.getValue())) {
                    case Outcome.Success<Note> s -> {
                        assertThat(s.value().text()).as("a writer is answered by its own change").isEqualTo(t.getKey());
                        answered.add(s.value().id());
                    }
                    case Outcome.Failure<Note> f when f.error() instanceof BoardException b
                            && b.kind() == BoardException.Kind.UNAVAILABLE
                            && b.getCause() instanceof ChangeLogClosedException -> refused++;
                    case Outcome.Failure<Note> f when f.error() instanceof IllegalStateException e
                            && "written, but not acknowledged".equals(e.getMessage()) -> failed++;
                    case Outcome<Note> o -> throw new AssertionError("unexpected outcome " + o);
                }
            }
            assertThat(tasks).hasSize(WRITERS * NOTES_EACH);
            assertThat(refused).as("writers refused by the log").isEqualTo(log.refused.size()).isPositive();
            // A change delivered before its append failed may be applied first: then its writer is
            // answered with the note (it is durable), else with the failure; never both, never neither.
            assertThat(answered).as("acknowledged changes answer their writers").containsAll(log.notes(log.acknowledged));
            List<String> late = new ArrayList<>(answered);
            late.removeAll(log.notes(log.acknowledged));
            assertThat(log.notes(log.failedAfterDelivery)).as("other answers: changes whose append failed late")
                    .containsAll(late);
            assertThat(late.size() + failed).isEqualTo(log.failedAfterDelivery.size());
            List<String> live = Task.start(pump, () -> store.snapshot(board).notes().stream().map(Note::id).toList()).join(T);
            assertThat(live).as("the store holds the delivered changes, in delivery order").isEqualTo(log.deliveredNotes());
        } finally {
            pump.shutdown();
            pump.awaitTermination(T);
        }
    }

    private static Outcome<Note> waitFor(Task<Note> t) {
        try {
            t.join(T);
        } catch (Exception ignored) {
            // the outcome says what it was
        }
        return t.outcomeOrNull();
    }

    /** A change log whose acknowledgements and deliveries are decided by its own thread. */
    private static final class DetachedLog implements ChangeLog {

        private record Appended(Change change, long appendId, Promise<LogPosition> ack) {
        }

        private final Random random;
        private final BlockingQueue<Appended> appended = new LinkedBlockingQueue<>();
        private final List<LoggedChange> delivered = new ArrayList<>();
        private final List<Change> acknowledged = new ArrayList<>();
        private final List<Change> refused = new ArrayList<>();
        private final List<Change> failedAfterDelivery = new ArrayList<>();
        private volatile ChangeSink sink;
        private volatile Throwable failure;

        DetachedLog(Random random) {
            this.random = random;
        }

        @Override
        public Task<Void> start(List<LogPosition> from, ChangeSink sink) {
            sink.replay(List.of());
            this.sink = sink;
            return Task.completed(null);
        }

        @Override
        public Task<LogPosition> append(Change change, long appendId, HopTrace trace) {
            Promise<LogPosition> ack = new Promise<>();
            appended.add(new Appended(change, appendId, ack));
            return Task.from(ack);
        }

        /** Takes {@code expected} appends, delivering in batches (at once when none waits); acknowledgements before or after. */
        void run(int expected) {
            try {
                List<Runnable> ackAfter = new ArrayList<>();
                List<LoggedChange> batch = new ArrayList<>();
                for (int taken = 0; taken < expected; taken++) {
                    Appended a = appended.poll(30, TimeUnit.SECONDS);
                    if (a == null) {
                        throw new AssertionError("only " + taken + " of " + expected + " appends arrived");
                    }
                    LogPosition at = new LogPosition(0, taken);
                    // The board's creation is plainly acknowledged; the notes go every way.
                    int way = a.change() instanceof Change.CreateBoard ? 0 : random.nextInt(4);
                    switch (way) {
                        case 0 -> { // acknowledged, then delivered
                            a.ack().complete(at);
                            acknowledged.add(a.change());
                            batch.add(new LoggedChange(a.change(), at, a.appendId()));
                        }
                        case 1 -> { // delivered, then acknowledged
                            acknowledged.add(a.change());
                            batch.add(new LoggedChange(a.change(), at, a.appendId()));
                            ackAfter.add(() -> a.ack().complete(at));
                        }
                        case 2 -> { // refused: never written
                            refused.add(a.change());
                            a.ack().fail(new ChangeLogClosedException("closing"));
                        }
                        default -> { // written and delivered, but the append fails
                            failedAfterDelivery.add(a.change());
                            batch.add(new LoggedChange(a.change(), at, a.appendId()));
                            ackAfter.add(() -> a.ack().fail(new IllegalStateException("written, but not acknowledged")));
                        }
                    }
                    if (batch.size() >= 1 + random.nextInt(8) || appended.isEmpty()) {
                        delivered.addAll(batch);
                        sink.apply(List.copyOf(batch));
                        batch.clear();
                        ackAfter.forEach(Runnable::run);
                        ackAfter.clear();
                    }
                }
            } catch (Throwable t) {
                failure = t;
            }
        }

        /** The note ids of the notes among {@code changes}. */
        List<String> notes(List<Change> changes) {
            return changes.stream().filter(c -> c instanceof Change.AddNote).map(c -> ((Change.AddNote) c).noteId()).toList();
        }

        List<String> deliveredNotes() {
            return notes(delivered.stream().map(LoggedChange::change).toList());
        }

        @Override
        public ChangeLogMetrics metrics() {
            return new ChangeLogMetrics(delivered.size(), 0, 0, 0, 0, 0, false);
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
