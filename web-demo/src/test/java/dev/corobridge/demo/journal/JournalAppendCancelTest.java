package dev.corobridge.demo.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.changelog.LogPosition;
import dev.corobridge.ring.RingPool;

/**
 * Cancelling the task {@link Journal#append} returned stops only that caller's wait: the record queued
 * is still written, and the sink (what the service applies its live state from) gets it once it is
 * durable, on the journal's ring, in file order. So the live state and a replay after a restart
 * agree. The ring is held (a task waiting on a latch) while the appends queue and one is cancelled,
 * so the cancel surely comes before the commit.
 */
class JournalAppendCancelTest extends JournalFixture {

    JournalAppendCancelTest(RingPool pool) {
        super(pool);
    }

    @Test
    void cancellingAnAppendStopsOnlyThatWaitTheRecordIsStillDeliveredInFileOrder() throws Exception {
        Path file = dir.resolve("journal.log");
        try (Journal j = Journal.open(pool, file, T)) {
            RecordingSink sink = new RecordingSink(j);
            j.start(List.of(), sink).join(T);
            CountDownLatch release = holdRing(j);
            Awaitable<LogPosition> first;
            Awaitable<LogPosition> second;
            try {
                first = j.append(new Change.CreateBoard("b1", "cancelled by its caller"), 1, null);
                second = j.append(new Change.CreateBoard("b2", "waited for"), 2, null);
                assertThat(first.cancel()).as("the caller's wait ends at once").isTrue();
                assertThat(first.outcomeOrNull()).isNotNull().matches(Outcome::isCancelled);
                assertThat(sink.calls).as("the sink waits for the records, whatever their callers do")
                        .containsExactly("replay []");
            } finally {
                release.countDown();
            }
            assertThat(second.join(T).offset()).isGreaterThan(JournalCodec.FILE_HEADER);
            assertThat(sink.calls).as("both records delivered, in file order, with their append ids")
                    .containsExactly("replay []", "apply [b1#1,b2#2] on the ring");
            assertThat(first.outcomeOrNull()).as("the cancelled view stays cancelled").matches(Outcome::isCancelled);
            assertThat(j.metrics().changes()).isEqualTo(2);
        }
        try (Journal again = Journal.open(pool, file, T)) {
            assertThat(again.replayed()).as("replay = what the live state was given")
                    .extracting(Change::boardId).containsExactly("b1", "b2");
        }
    }
}
