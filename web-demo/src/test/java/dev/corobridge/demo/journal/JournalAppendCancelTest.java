package dev.corobridge.demo.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.demo.board.Change;
import dev.corobridge.ring.RingPool;
import dev.corobridge.test.CorobridgeTest;

/**
 * Cancelling what {@link Journal#append} returned stops only that caller's wait: the record queued
 * is still written, and the in-file-order callback (what the service applies its live state from)
 * is told the record's real outcome when it is durable, on the journal's ring, in file order. So the
 * live state and a replay after a restart agree. The ring is held (a task waiting on a latch) while
 * the appends queue and one is cancelled, so the cancel surely comes before the commit.
 */
@CorobridgeTest
class JournalAppendCancelTest {

    private static final Duration T = Duration.ofSeconds(30);
    private final RingPool pool;

    @TempDir
    Path dir;

    JournalAppendCancelTest(RingPool pool) {
        this.pool = pool;
    }

    @Test
    void cancellingAnAppendStopsOnlyThatWaitTheRecordIsStillToldInFileOrder() throws Exception {
        Path file = dir.resolve("journal.log");
        List<String> told = new CopyOnWriteArrayList<>();
        CountDownLatch bothTold = new CountDownLatch(2);
        try (Journal j = Journal.open(pool, file, T)) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            j.ring().execute(() -> {
                holding.countDown();
                awaitQuietly(release);
            });
            assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
            Awaitable<Long> first;
            Awaitable<Long> second;
            try {
                first = j.append(new Change.CreateBoard("b1", "cancelled by its caller"), null, o -> {
                    told.add("b1 " + kind(o) + where(j));
                    bothTold.countDown();
                });
                second = j.append(new Change.CreateBoard("b2", "waited for"), null, o -> {
                    told.add("b2 " + kind(o) + where(j));
                    bothTold.countDown();
                });
                assertThat(first.cancel()).as("the caller's wait ends at once").isTrue();
                assertThat(first.outcomeOrNull()).isNotNull().matches(Outcome::isCancelled);
                assertThat(told).as("the in-file-order callback waits for the record, whatever its caller does").isEmpty();
            } finally {
                release.countDown();
            }
            assertThat(bothTold.await(30, TimeUnit.SECONDS)).as("both records told their outcome").isTrue();
            assertThat(told).containsExactly("b1 success on the ring", "b2 success on the ring");
            assertThat(second.join(T)).isGreaterThan(JournalCodec.FILE_HEADER);
            assertThat(first.outcomeOrNull()).as("the cancelled view stays cancelled").matches(Outcome::isCancelled);
            assertThat(j.metrics().changes()).isEqualTo(2);
        }
        try (Journal again = Journal.open(pool, file, T)) {
            assertThat(again.replayed()).as("replay = what the live state was told")
                    .extracting(Change::boardId).containsExactly("b1", "b2");
        }
    }

    private static String where(Journal j) {
        return j.ring().isCurrentThread() ? " on the ring" : " on " + Thread.currentThread().getName();
    }

    private static String kind(Outcome<Long> o) {
        return switch (o) {
            case Outcome.Success<Long> s -> "success";
            case Outcome.Failure<Long> f -> "failure " + f.error();
            case Outcome.Cancelled<Long> c -> "cancelled";
        };
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
