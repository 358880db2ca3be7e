package dev.corobridge.demo.journal;

import static dev.corobridge.demo.journal.TestAppends.append;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;

/**
 * The journal's ring shuts down under it (the pool closed first): the commit can no longer be
 * scheduled. An append then fails at once with {@link JournalClosedException} naming the ring, and
 * nothing reaches the sink; every later append fails as fast; {@link Journal#close} returns
 * without waiting out its timeout; the journal is not broken, and what was acknowledged before is
 * replayed. Each test has a pool of its own, since it shuts it down. Close runs on a daemon thread,
 * joined with a bound: it is given 5 minutes, so a close that waits for commits that can never run
 * is still waiting when the bound passes.
 */
class JournalRingShutdownTest {

    private static final Duration T = Duration.ofSeconds(30);
    private static final Duration LONG = Duration.ofMinutes(5);

    @TempDir
    Path dir;

    @Test
    void appendsAfterTheRingShutDownFailAtOnceAndCloseReturns() throws Exception {
        Path file = dir.resolve("journal.log");
        Journal j = openThenShutDownItsRing(file, "journal-ring-down", "b1");

        RecordingSink sink = new RecordingSink(j);
        j.start(List.of(), sink).join(T);
        Awaitable<LogPosition> first = append(j, new Change.CreateBoard("b2", "after the shutdown"));
        assertThat(first.isDone()).as("an append whose commit cannot be scheduled fails at once").isTrue();
        assertRingGone(first.outcomeOrNull());
        assertThat(sink.calls).as("nothing unwritten reaches the sink").containsExactly("replay []");

        Awaitable<LogPosition> later = append(j, new Change.CreateBoard("b3", "later"));
        assertThat(later.isDone()).as("a later append fails fast instead of waiting for a commit that never comes").isTrue();
        assertRingGone(later.outcomeOrNull());

        assertClosesPromptly(j);
        assertThat(j.isBroken()).as("a shut-down ring is not a broken journal").isFalse();
        assertReplayed(file, "b1");
    }

    @Test
    void closeAfterTheRingShutDownReturns() throws Exception {
        Path file = dir.resolve("journal.log");
        Journal j = openThenShutDownItsRing(file, "journal-ring-down-close", "b1");
        assertClosesPromptly(j);
        assertReplayed(file, "b1");
    }

    /**
     * The ring is gone, and writers append at the same moment (released together by a barrier),
     * many rounds: one of them finds its commit refused and fails the queue, while the others queue
     * their records around that. Every append has ended by the time its {@code append} call
     * returned — failed with {@link JournalClosedException} — none is left queued.
     */
    @Test
    void appendsRacingTheRefusalAllFailAtOnce() throws Exception {
        int rounds = Integer.getInteger("journal.refusal.rounds", 30);
        int writers = 4;
        for (int round = 0; round < rounds; round++) {
            String name = "journal-refusal-" + round;
            Journal j = openThenShutDownItsRing(dir.resolve(name + ".log"), name);
            CyclicBarrier start = new CyclicBarrier(writers);
            List<Awaitable<LogPosition>> appends = new CopyOnWriteArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                int writer = w;
                threads.add(writer(start, () -> {
                    for (int i = 0; i < 20; i++) {
                        appends.add(append(j, new Change.CreateBoard("b" + (writer * 100 + i + 1), "x")));
                    }
                }));
            }
            for (Thread t : threads) {
                t.join(T);
                assertThat(t.isAlive()).as("round %d: a writer still appending after %s", round, T).isFalse();
            }
            assertThat(appends).as("round %d: every append returned", round).hasSize(writers * 20);
            for (Awaitable<LogPosition> a : appends) {
                assertThat(a.isDone()).as("round %d: an append still waiting for a commit that never comes", round).isTrue();
                assertRingGone(a.outcomeOrNull());
            }
            assertThat(j.metrics().queued()).as("round %d: nothing left queued", round).isZero();
            assertClosesPromptly(j);
        }
    }

    /**
     * Writers append while the pool shuts down under the journal, many rounds (each a different
     * interleaving: the writers and the shutdown released together by a barrier). However the race
     * falls — the commit refused, or cut by the shutdown mid-write (the journal then turns broken) —
     * every append ends (acknowledged, or failed with {@link JournalClosedException} or the journal's
     * {@link BoardException}), none waits forever, close returns, and every acknowledged change is
     * replayed.
     */
    @Test
    void appendsRacingTheRingShutdownAllEnd() throws Exception {
        int rounds = Integer.getInteger("journal.ringdown.rounds", 8);
        int writers = 3;
        for (int round = 0; round < rounds; round++) {
            Path file = dir.resolve("journal-" + round + ".log");
            RingPool pool = RingPool.start(RingPoolConfig.builder().name("journal-ring-race-" + round).rings(1).build());
            Journal j;
            List<List<Awaitable<LogPosition>>> appends = new ArrayList<>();
            List<String> acked = new ArrayList<>();
            try {
                j = Journal.open(pool, file, T);
                CyclicBarrier start = new CyclicBarrier(writers + 1);
                List<Thread> threads = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    List<Awaitable<LogPosition>> mine = new ArrayList<>();
                    appends.add(mine);
                    int writer = w;
                    threads.add(writer(start, () -> {
                        for (int i = 0; i < 2_000; i++) {
                            Awaitable<LogPosition> a = append(j, new Change.CreateBoard("b" + (writer * 1_000_000 + i + 1), "x"));
                            mine.add(a);
                            if (a.isDone() && !a.outcomeOrNull().isSuccess()) {
                                return; // refused: the ring is gone or the journal broke
                            }
                        }
                    }));
                }
                start.await(30, TimeUnit.SECONDS);
                for (int spin = ThreadLocalRandom.current().nextInt(20_000); spin > 0; spin--) {
                    Thread.onSpinWait();
                }
                pool.close();
                for (Thread t : threads) {
                    t.join(T);
                    assertThat(t.isAlive()).as("round %d: a writer still appending after %s", round, T).isFalse();
                }
            } finally {
                pool.close();
            }
            for (int w = 0; w < writers; w++) {
                List<Awaitable<LogPosition>> mine = appends.get(w);
                for (int i = 0; i < mine.size(); i++) {
                    Awaitable<LogPosition> a = mine.get(i);
                    try {
                        a.join(T);
                        acked.add("b" + (w * 1_000_000 + i + 1));
                    } catch (TimeoutException e) {
                        throw new AssertionError("round " + round + ": writer " + w + " append " + i + " not decided after " + T);
                    } catch (JournalClosedException | BoardException expected) {
                        // refused: the ring shut down, or cut the commit under way (the journal broke)
                    }
                }
            }
            assertClosesPromptly(j);
            RingPool again = RingPool.start(RingPoolConfig.builder().name("journal-ring-race-reopen").rings(1).build());
            try (Journal reopened = Journal.open(again, file, T)) {
                assertThat(reopened.replayed()).extracting(Change::boardId)
                        .as("round %d: every acknowledged change is replayed", round).containsAll(acked);
            } finally {
                again.close();
            }
        }
    }

    /**
     * Opens the journal at {@code file} on a pool of its own named {@code ringName}, appends a board
     * for each of {@code boardsBefore} and waits for it to be acknowledged, then shuts the pool down.
     */
    private static Journal openThenShutDownItsRing(Path file, String ringName, String... boardsBefore)
            throws Exception {
        RingPool pool = RingPool.start(RingPoolConfig.builder().name(ringName).rings(1).build());
        try {
            Journal j = Journal.open(pool, file, T);
            for (String board : boardsBefore) {
                append(j, new Change.CreateBoard(board, "before the shutdown")).join(T);
            }
            return j;
        } finally {
            pool.close();
        }
    }

    /** A writer: a daemon thread that waits (30 s at most) for {@code start}, then runs {@code appends}. */
    private static Thread writer(CyclicBarrier start, Runnable appends) {
        return Thread.ofPlatform().daemon().start(() -> {
            try {
                start.await(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
            appends.run();
        });
    }

    private void assertRingGone(Outcome<LogPosition> o) {
        assertThat(o).isInstanceOfSatisfying(Outcome.Failure.class, f -> assertThat(f.error())
                .isInstanceOf(JournalClosedException.class)
                .hasMessageContaining("ring has shut down")
                .hasMessageContaining("not written"));
    }

    private static void assertClosesPromptly(Journal j) throws Exception {
        CompletableFuture<Void> closed = new CompletableFuture<>();
        Thread closer = Thread.ofPlatform().daemon().name("journal-closer").start(() -> {
            try {
                j.close(LONG);
                closed.complete(null);
            } catch (Throwable t) {
                closed.completeExceptionally(t);
            }
        });
        closer.join(T);
        assertThat(closer.isAlive()).as("close(%s) still waiting after %s for commits that can never run", LONG, T).isFalse();
        closed.get(1, TimeUnit.SECONDS); // rethrows what close threw
    }

    private void assertReplayed(Path file, String... boards) throws Exception {
        RingPool again = RingPool.start(RingPoolConfig.builder().name("journal-reopen").rings(1).build());
        try (Journal reopened = Journal.open(again, file, T)) {
            assertThat(reopened.replayed()).extracting(Change::boardId).containsExactly(boards);
        } finally {
            again.close();
        }
    }
}
