package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.corobridge.bridge.Task;
import dev.corobridge.demo.board.BoardStore;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.board.Note;
import dev.corobridge.demo.journal.Journal;
import dev.corobridge.demo.journal.JournalFixture;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.RingPool;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * {@link BoardService} applies changes in the journal's order, whatever thread makes them and
 * however late it gets to register for the journal's answer: the state clients see is the state a
 * restart rebuilds. On main the apply was registered on the journal's promise after {@code append}
 * returned; an append that completed before that registration was applied from the committing
 * thread, after later changes already posted from the journal's thread (RestartTest saw a note at
 * another position after a restart). Many committing threads on two cores make that likely.
 */
class CommitOrderTest extends JournalFixture {

    CommitOrderTest(RingPool pool) {
        super(pool);
    }

    @Test
    void changesAreAppliedInJournalOrder() throws Exception {
        Path file = dir.resolve("journal.log");
        MessagePump pump = MessagePump.start("commit-order");
        List<String> live;
        try (Journal journal = Journal.open(pool, file, T)) {
            BoardStore store = onPump(pump, () -> new BoardStore(pump));
            BoardService service = new BoardService(pump, store, journal, pool, null, null);
            service.start(T);
            String board = service.createBoardAsync("order", null).join(T).id();
            ExecutorService committers = Executors.newFixedThreadPool(32);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 32; t++) {
                    done.add(committers.submit(() -> {
                        for (int i = 0; i < 60; i++) {
                            service.addNoteAsync(board, "x", null).join(T);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                committers.shutdownNow();
            }
            live = onPump(pump, () -> store.snapshot(board).notes().stream().map(Note::id).toList());
        } finally {
            pump.shutdown();
            pump.awaitTermination(T);
        }
        List<String> journalOrder;
        try (Journal reopened = Journal.open(pool, file, T)) {
            journalOrder = reopened.replayed().stream()
                    .filter(c -> c instanceof Change.AddNote).map(c -> ((Change.AddNote) c).noteId()).toList();
        }
        assertThat(live).hasSize(32 * 60);
        assertThat(live).as("notes in the order they were applied vs the journal's order").isEqualTo(journalOrder);
    }

    private static <T> T onPump(MessagePump pump, Callable<T> body) throws Exception {
        return Task.start(pump, body).join(T);
    }
}
