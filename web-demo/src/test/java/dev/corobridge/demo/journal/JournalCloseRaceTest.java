package dev.corobridge.demo.journal;

import static dev.corobridge.demo.journal.TestAppends.append;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.ring.RingPool;
import dev.corobridge.test.CorobridgeTest;

/**
 * {@link Journal#append} racing {@link Journal#close}: every append is either acknowledged (and
 * replayed after a reopen) or refused with {@link JournalClosedException}; the journal never turns
 * broken, and close returns only after every admitted append is acknowledged. Many rounds, each a
 * different interleaving (writers released together with the closer by a barrier, the close after a
 * random spin), no sleeps. The ring pool is the test's own (corobridge-test), which fails the test if
 * any round leaves a journal's file open or a ring operation in flight.
 */
@CorobridgeTest
class JournalCloseRaceTest {

    private static final Duration T = Duration.ofSeconds(30);
    /** Appends per writer and round at most (a writer normally stops at its first refusal). */
    private static final int MAX_APPENDS = 2_000;
    private final RingPool pool;

    @TempDir
    Path dir;

    JournalCloseRaceTest(RingPool pool) {
        this.pool = pool;
    }

    @Test
    void appendsRacingCloseAreCommittedOrRefusedNeverBroken() throws Exception {
        int rounds = Integer.getInteger("journal.race.rounds", 400);
        int writers = 4;
        long ackedTotal = 0;
        long refusedTotal = 0;
        for (int round = 0; round < rounds; round++) {
            Path file = dir.resolve("journal-" + round + ".log");
            Journal j = Journal.open(pool, file, T);
            CyclicBarrier start = new CyclicBarrier(writers + 1);
            List<List<Awaitable<LogPosition>>> appends = new ArrayList<>();
            List<List<Change>> changes = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                List<Awaitable<LogPosition>> mine = new ArrayList<>();
                List<Change> sent = new ArrayList<>();
                appends.add(mine);
                changes.add(sent);
                int writer = w;
                threads.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                    for (int i = 0; i < MAX_APPENDS; i++) {
                        Change c = new Change.CreateBoard("b" + (writer * 1_000_000 + i + 1), "w" + writer + " #" + i);
                        Awaitable<LogPosition> a = append(j, c);
                        mine.add(a);
                        sent.add(c);
                        if (a.isDone() && !a.outcomeOrNull().isSuccess()) {
                            return; // refused: close has begun
                        }
                    }
                }));
            }
            start.await();
            for (int spin = ThreadLocalRandom.current().nextInt(2000); spin > 0; spin--) {
                Thread.onSpinWait();
            }
            j.close(T);
            for (Thread t : threads) {
                t.join();
            }
            List<List<Change>> ackedPerWriter = new ArrayList<>();
            List<Change> acked = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                List<Change> mine = new ArrayList<>();
                ackedPerWriter.add(mine);
                for (int i = 0; i < appends.get(w).size(); i++) {
                    // Admitted appends were acknowledged before close returned; refused ones at once.
                    Outcome<LogPosition> o = appends.get(w).get(i).outcomeOrNull();
                    assertThat(o).as("round %d: writer %d append %d still pending after close", round, w, i).isNotNull();
                    if (o instanceof Outcome.Success<LogPosition>) {
                        mine.add(changes.get(w).get(i));
                    } else {
                        refusedTotal++;
                        assertThat(o).as("round %d: writer %d append %d", round, w, i)
                                .isInstanceOfSatisfying(Outcome.Failure.class, f -> assertThat(f.error())
                                        .isInstanceOf(JournalClosedException.class).hasMessageContaining("is closing"));
                        assertThat(i).as("round %d: writer %d: only its last append is refused", round, w)
                                .isEqualTo(appends.get(w).size() - 1);
                    }
                }
                acked.addAll(mine);
            }
            ackedTotal += acked.size();
            assertThat(j.isBroken()).as("round %d: the journal turned broken", round).isFalse();
            try (Journal again = Journal.open(pool, file, T)) {
                List<Change> replayed = again.replayed();
                assertThat(replayed).as("round %d: replayed = acknowledged", round).hasSameSizeAs(acked);
                Map<Change, Integer> position = new HashMap<>();
                for (int i = 0; i < replayed.size(); i++) {
                    position.put(replayed.get(i), i);
                }
                for (List<Change> mine : ackedPerWriter) {
                    int last = -1;
                    for (Change c : mine) {
                        Integer at = position.get(c);
                        assertThat(at).as("round %d: acknowledged %s replayed", round, c).isNotNull();
                        // Each writer's records are in the file in its append order.
                        assertThat(at).as("round %d: order of %s", round, c).isGreaterThan(last);
                        last = at;
                    }
                }
            }
        }
        System.out.printf("[close race] %d rounds: %d appends acknowledged, %d refused%n", rounds, ackedTotal, refusedTotal);
        assertThat(refusedTotal).as("the closes raced the writers").isPositive();
    }
}
