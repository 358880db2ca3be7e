package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/**
 * The rate limit of the one WARN line about client faults, on a clock the test moves: the first
 * fault is reported at once, then at most one line per interval, and no fault is lost (each is in
 * exactly one line, or still pending).
 */
class ClientFaultSummaryTest {

    private static final Duration MINUTE = Duration.ofMinutes(1);

    private final AtomicLong now = new AtomicLong(1_000);
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final ClientFaultSummary summary = new ClientFaultSummary(MINUTE, now::get, lines::add);

    private static long count(String line) {
        return Long.parseLong(line.substring(0, line.indexOf(' ')));
    }

    @Test
    void theFirstFaultIsReportedAtOnceThenAtMostOneLineAMinute() {
        summary.record("400 from the HTTP decoder (No colon found)");
        assertThat(lines).singleElement().satisfies(l -> assertThat(l).startsWith("1 client fault ")
                .contains("the last: 400 from the HTTP decoder (No colon found)"));
        for (int i = 0; i < 500; i++) {
            summary.record("fault " + i);
        }
        now.addAndGet(MINUTE.toNanos() - 1);
        summary.record("one more");
        assertThat(lines).hasSize(1);
        now.addAndGet(1);
        summary.record("the last one");
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1)).startsWith("502 client faults ").contains("the last: the last one");
        now.addAndGet(10 * MINUTE.toNanos()); // a quiet spell: nothing is logged without a fault
        assertThat(lines).hasSize(2);
        summary.record("after a quiet spell");
        assertThat(lines).hasSize(3);
        assertThat(count(lines.get(2))).isEqualTo(1);
    }

    @Test
    void clientBytesInADescriptionAreMadePrintable() {
        summary.record("bad header 'X\r\nFake: log line'");
        assertThat(lines).singleElement().satisfies(l -> assertThat(l).doesNotContain("\r").doesNotContain("\n")
                .contains("\\u000D\\u000A"));
    }

    @Test
    void aFaultCountedWithItsConnectionMarksIt() {
        EmbeddedChannel channel = new EmbeddedChannel();
        assertThat(ClientFaultSummary.isCounted(channel)).isFalse();
        summary.record(channel, "a timeout");
        assertThat(ClientFaultSummary.isCounted(channel)).isTrue();
        assertThat(ClientFaultSummary.isCounted(new EmbeddedChannel())).isFalse();
        channel.finishAndReleaseAll();
    }

    @Test
    void concurrentFaultsAreEachReportedOnceWithAtMostOneLinePerInterval() throws Exception {
        int threads = 8;
        int perThread = 20_000;
        CountDownLatch start = new CountDownLatch(1);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            workers[t] = Thread.ofPlatform().start(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                for (int i = 0; i < perThread; i++) {
                    if (id == 0 && i % 1000 == 0) {
                        now.addAndGet(MINUTE.toNanos() / 4); // the clock moves while others record
                    }
                    summary.record("fault " + id + "/" + i);
                }
            });
        }
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long elapsedMinutes = (now.get() - 1_000) / MINUTE.toNanos();
        assertThat(lines.size()).as("lines").isBetween(1, (int) elapsedMinutes + 1);
        now.addAndGet(MINUTE.toNanos());
        summary.record("the last");
        long reported = lines.stream().mapToLong(ClientFaultSummaryTest::count).sum();
        assertThat(reported).isEqualTo((long) threads * perThread + 1);
    }

    @Test
    void theIntervalMustBePositive() {
        assertThatThrownBy(() -> new ClientFaultSummary(Duration.ZERO, System::nanoTime, l -> { }))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
