package dev.corobridge.demo.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;

import dev.corobridge.ring.RingPool;
import dev.corobridge.test.CorobridgeTest;

/**
 * The set-up of a test of journals on a ring pool of its own per test (corobridge-test, which fails
 * a test that leaves a journal's file open or a ring operation in flight, and closes the pool after
 * it): the pool, handed to the constructor; a temporary directory for the journal's files; the bound
 * {@link #T} of every wait; and {@link #holdRing}, to make appends queue before a commit starts.
 */
@CorobridgeTest
public abstract class JournalFixture {

    /** The bound of every wait. */
    protected static final Duration T = Duration.ofSeconds(30);

    protected final RingPool pool;

    @TempDir
    protected Path dir;

    protected JournalFixture(RingPool pool) {
        this.pool = pool;
    }

    /**
     * Holds {@code journal}'s ring with a task that waits (30 s at most) until the latch returned is
     * counted down: until then appends queue and no commit starts. Returns once the task runs.
     */
    protected static CountDownLatch holdRing(Journal journal) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch holding = new CountDownLatch(1);
        journal.ring().execute(() -> {
            holding.countDown();
            awaitQuietly(release);
        });
        assertThat(holding.await(30, TimeUnit.SECONDS)).isTrue();
        return release;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
