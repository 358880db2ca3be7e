package dev.corobridge.demo.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.corobridge.pump.MessagePump;

/** The store's rules: prepare changes nothing, apply decides, replay rebuilds exactly the same boards. */
class BoardStoreTest {

    private final MessagePump pump = MessagePump.start("store-test");
    private final BoardStore store = new BoardStore(pump);

    @AfterEach
    void stop() throws InterruptedException {
        pump.shutdown();
        pump.awaitTermination(Duration.ofSeconds(10));
    }

    private <T> T onPump(Callable<T> body) throws Exception {
        return pump.call(body).join(Duration.ofSeconds(10));
    }

    /** The BoardException a call failed with, wherever it is in the cause chain. */
    private static BoardException boardFailure(Callable<?> call) {
        try {
            call.call();
        } catch (Throwable t) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                if (c instanceof BoardException b) {
                    return b;
                }
            }
            throw new AssertionError("failed without a BoardException", t);
        }
        throw new AssertionError("did not fail");
    }

    @Test
    void raceLostAtApplyIsRejectedLiveAndOnReplayAlike() throws Exception {
        List<Change> journal = new ArrayList<>();
        onPump(() -> {
            Change b = store.prepareCreateBoard("race");
            journal.add(b);
            store.apply(b);
            Change n = store.prepareAddNote("b1", "first");
            journal.add(n);
            store.apply(n);
            // Two edits prepared against version 1: both pass prepare, only the first may apply.
            Change e1 = store.prepareEditNote("b1", "n1", "one", 1);
            Change e2 = store.prepareEditNote("b1", "n1", "two", 1);
            journal.add(e1);
            journal.add(e2);
            store.apply(e1);
            assertThatThrownBy(() -> store.apply(e2)).isInstanceOf(BoardException.class)
                    .satisfies(e -> assertThat(((BoardException) e).kind()).isEqualTo(BoardException.Kind.CONFLICT));
            return null;
        });
        BoardSnapshot live = onPump(() -> store.snapshot("b1"));
        assertThat(live.revision()).isEqualTo(2);
        assertThat(live.notes()).singleElement().satisfies(n -> {
            assertThat(n.text()).isEqualTo("one");
            assertThat(n.version()).isEqualTo(2);
        });

        BoardStore replayed = new BoardStore(pump);
        List<Boolean> applied = onPump(() -> journal.stream().map(replayed::replay).toList());
        assertThat(applied).containsExactly(true, true, true, false);
        assertThat(onPump(() -> replayed.snapshot("b1"))).isEqualTo(live);
        // Ids continue after the highest one replayed.
        assertThat(onPump(() -> replayed.prepareAddNote("b1", "x").noteId())).isEqualTo("n2");
        assertThat(onPump(() -> replayed.prepareCreateBoard("y").boardId())).isEqualTo("b2");
    }

    @Test
    void prepareChangesNothingAndFailsFastOnStaleOrMissing() throws Exception {
        onPump(() -> store.apply(store.prepareCreateBoard("b")));
        onPump(() -> store.prepareAddNote("b1", "never committed"));
        assertThat(onPump(() -> store.snapshot("b1")).notes()).isEmpty();
        assertThat(boardFailure(() -> onPump(() -> store.prepareAddNote("b9", "x"))).getMessage()).contains("b9");
        assertThat(boardFailure(() -> onPump(() -> store.prepareEditNote("b1", "n1", "x", 1))).kind())
                .isEqualTo(BoardException.Kind.NOT_FOUND);
    }

    @Test
    void aWaitFromARevisionTheBoardHasNotReachedIsRefusedAndRegistersNothing() throws Exception {
        onPump(() -> store.apply(store.prepareCreateBoard("b")));
        onPump(() -> store.apply(store.prepareAddNote("b1", "x")));
        for (long after : new long[] {2, 1_000_000_000L, Long.MAX_VALUE}) {
            BoardException e = boardFailure(() -> onPump(() -> store.awaitRevision("b1", after, Duration.ofMinutes(5))));
            assertThat(e.kind()).isEqualTo(BoardException.Kind.CONFLICT);
            assertThat(e.getMessage()).contains("revision 1").contains("'after' (" + after + ")");
        }
        assertThat(onPump(() -> store.subscriberAndWaiterCounts())).containsExactly(0, 0);
        // The board's own revision waits; a past one answers at once.
        var atRevision = onPump(() -> store.awaitRevision("b1", 1, Duration.ofMinutes(5)));
        assertThat(atRevision.isDone()).isFalse();
        assertThat(onPump(() -> store.awaitRevision("b1", 0, Duration.ofMinutes(5))).join(Duration.ofSeconds(10))
                .revision()).isEqualTo(1);
        onPump(() -> store.apply(store.prepareAddNote("b1", "y")));
        assertThat(atRevision.join(Duration.ofSeconds(10)).revision()).isEqualTo(2);
    }

    @Test
    void closingEndsStreamsAndWaitersAndRefusesNewChanges() throws Exception {
        List<String> seen = new ArrayList<>();
        var waiter = onPump(() -> {
            store.apply(store.prepareCreateBoard("b"));
            store.subscribe("b1", new BoardListener() {
                @Override
                public boolean onEvent(BoardEvent event) {
                    seen.add(event.type());
                    return true;
                }

                @Override
                public void onClose() {
                    seen.add("closed");
                }
            });
            return store.awaitRevision("b1", 0, Duration.ofMinutes(5));
        });
        onPump(() -> store.apply(store.prepareAddNote("b1", "x")));
        assertThat(waiter.join(Duration.ofSeconds(10)).revision()).isEqualTo(1);
        var second = onPump(() -> store.awaitRevision("b1", 1, Duration.ofMinutes(5)));
        onPump(() -> {
            store.close();
            return null;
        });
        assertThat(second.join(Duration.ofSeconds(10)).revision()).isEqualTo(1);
        assertThat(seen).containsExactly("note-added", "closed");
        assertThat(boardFailure(() -> onPump(() -> store.prepareAddNote("b1", "late"))).kind())
                .isEqualTo(BoardException.Kind.UNAVAILABLE);
        assertThat(onPump(() -> store.subscriberAndWaiterCounts())).containsExactly(0, 0);
    }
}
