package dev.corobridge.demo.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import org.junit.jupiter.api.Test;

import dev.corobridge.bridge.Promise;
import dev.corobridge.pump.ManualPump;
import dev.corobridge.test.CorobridgeTest;

/**
 * The store's rules: prepare changes nothing, apply decides, replay rebuilds exactly the same boards.
 * Each test gets its own {@link ManualPump} (corobridge-test): the test thread is the pump thread,
 * so the store is called directly; its timers run on the pump's virtual clock; and a test that
 * leaves a wait's timer or a pump task behind fails.
 */
@CorobridgeTest(pumpName = "store-test")
class BoardStoreTest {

    private final ManualPump pump;
    private final BoardStore store;

    BoardStoreTest(ManualPump pump) {
        this.pump = pump;
        this.store = new BoardStore(pump);
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
    void raceLostAtApplyIsRejectedLiveAndOnReplayAlike() {
        List<Change> journal = new ArrayList<>();
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
        BoardSnapshot live = store.snapshot("b1");
        assertThat(live.revision()).isEqualTo(2);
        assertThat(live.notes()).singleElement().satisfies(note -> {
            assertThat(note.text()).isEqualTo("one");
            assertThat(note.version()).isEqualTo(2);
        });

        BoardStore replayed = new BoardStore(pump);
        List<Boolean> applied = journal.stream().map(replayed::replay).toList();
        assertThat(applied).containsExactly(true, true, true, false);
        assertThat(replayed.snapshot("b1")).isEqualTo(live);
        // Ids continue after the highest one replayed.
        assertThat(replayed.prepareAddNote("b1", "x").noteId()).isEqualTo("n2");
        assertThat(replayed.prepareCreateBoard("y").boardId()).isEqualTo("b2");
    }

    @Test
    void prepareChangesNothingAndFailsFastOnStaleOrMissing() {
        store.apply(store.prepareCreateBoard("b"));
        store.prepareAddNote("b1", "never committed");
        assertThat(store.snapshot("b1").notes()).isEmpty();
        assertThat(boardFailure(() -> store.prepareAddNote("b9", "x")).getMessage()).contains("b9");
        assertThat(boardFailure(() -> store.prepareEditNote("b1", "n1", "x", 1)).kind())
                .isEqualTo(BoardException.Kind.NOT_FOUND);
    }

    @Test
    void aWaitFromARevisionTheBoardHasNotReachedIsRefusedAndRegistersNothing() {
        store.apply(store.prepareCreateBoard("b"));
        store.apply(store.prepareAddNote("b1", "x"));
        for (long after : new long[] {2, 1_000_000_000L, Long.MAX_VALUE}) {
            BoardException e = boardFailure(() -> store.awaitRevision("b1", after, Duration.ofMinutes(5)));
            assertThat(e.kind()).isEqualTo(BoardException.Kind.CONFLICT);
            assertThat(e.getMessage()).contains("revision 1").contains("'after' (" + after + ")");
        }
        assertThat(store.subscriberAndWaiterCounts()).containsExactly(0, 0);
        // The board's own revision waits; a past one answers at once.
        Promise<BoardSnapshot> atRevision = store.awaitRevision("b1", 1, Duration.ofMinutes(5));
        assertThat(atRevision.isDone()).isFalse();
        assertThat(store.awaitRevision("b1", 0, Duration.ofMinutes(5)).resultNow().revision()).isEqualTo(1);
        store.apply(store.prepareAddNote("b1", "y"));
        assertThat(atRevision.resultNow().revision()).isEqualTo(2);
        pump.runUntilIdle(); // the answered wait unregisters itself on the pump (and cancelled its timer)
        assertThat(store.subscriberAndWaiterCounts()).containsExactly(0, 0);
    }

    @Test
    void aWaitThatNoChangeAnswersEndsWithTheBoardAsItIsWhenItsTimeoutPasses() {
        store.apply(store.prepareCreateBoard("b"));
        Promise<BoardSnapshot> waiting = store.awaitRevision("b1", 0, Duration.ofMinutes(5));
        pump.advanceTimeBy(Duration.ofMinutes(5).minusMillis(1));
        assertThat(waiting.isDone()).isFalse();
        assertThat(store.subscriberAndWaiterCounts()).containsExactly(0, 1);
        pump.advanceTimeBy(Duration.ofMillis(1));
        assertThat(waiting.resultNow().revision()).isZero();
        pump.runUntilIdle();
        assertThat(store.subscriberAndWaiterCounts()).containsExactly(0, 0);
    }

    @Test
    void closingEndsStreamsAndWaitersAndRefusesNewChanges() {
        List<String> seen = new ArrayList<>();
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
        Promise<BoardSnapshot> waiter = store.awaitRevision("b1", 0, Duration.ofMinutes(5));
        store.apply(store.prepareAddNote("b1", "x"));
        assertThat(waiter.resultNow().revision()).isEqualTo(1);
        Promise<BoardSnapshot> second = store.awaitRevision("b1", 1, Duration.ofMinutes(5));
        store.close();
        assertThat(second.resultNow().revision()).isEqualTo(1);
        assertThat(seen).containsExactly("note-added", "closed");
        assertThat(boardFailure(() -> store.prepareAddNote("b1", "late")).kind())
                .isEqualTo(BoardException.Kind.UNAVAILABLE);
        pump.runUntilIdle();
        assertThat(store.subscriberAndWaiterCounts()).containsExactly(0, 0);
    }
}
