package dev.corobridge.test;

import static dev.corobridge.test.Samples.failureOf;
import static dev.corobridge.test.Samples.succeeded;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.corobridge.pump.ManualPump;
import dev.corobridge.ring.RingFile;
import dev.corobridge.ring.RingOp;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.Transport;
import io.netty.channel.uring.IoUring;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.testkit.engine.EngineExecutionResults;

/**
 * A test that leaves pump tasks, timers or ring files behind fails with a {@link LeakedWorkError}
 * that says what it left; the same work finished properly passes; and either way the extension
 * cleans up. (Coroutine leaks: {@code CoroutineLeakDetectionTest}.)
 */
class LeakDetectionTest {

    static final List<RingPool> POOLS = new CopyOnWriteArrayList<>();
    static final List<RingOp<?>> LEFT_IN_FLIGHT = new CopyOnWriteArrayList<>();
    static final AtomicInteger RAN = new AtomicInteger();

    @BeforeEach
    void clear() {
        POOLS.clear();
        LEFT_IN_FLIGHT.clear();
        RAN.set(0);
    }

    @Sample
    @CorobridgeTest
    static class PumpLeaks {
        @Test
        void leavesATaskQueued(ManualPump ui) {
            ui.execute(RAN::incrementAndGet);
        }

        @Test
        void leavesATimerPending(ManualPump ui) {
            ui.schedule(RAN::incrementAndGet, Duration.ofHours(1));
            ui.runUntilIdle();
        }

        @Test
        void leavesThreeTasksAndTwoTimers(ManualPump ui) {
            for (int i = 0; i < 3; i++) {
                ui.execute(RAN::incrementAndGet);
            }
            ui.schedule(RAN::incrementAndGet, Duration.ofMinutes(1));
            ui.schedule(RAN::incrementAndGet, Duration.ofMinutes(2));
        }

        @Test
        void finishesWhatItStarts(ManualPump ui) {
            // A counter of its own: the other samples' leftovers run in their pumps' shutdown.
            AtomicInteger ran = new AtomicInteger();
            ui.execute(ran::incrementAndGet);
            ui.schedule(ran::incrementAndGet, Duration.ofHours(1));
            ui.schedule(ran::incrementAndGet, Duration.ofHours(2)).cancel();
            ui.advanceUntilIdle();
            assertEquals(2, ran.get());
        }
    }

    @Test
    void queuedTasksAndPendingTimersFailTheTestByCount() {
        EngineExecutionResults results = Samples.run(PumpLeaks.class);
        assertThat(succeeded(results)).containsExactly("finishesWhatItStarts");
        assertThat(failureOf(results, "leavesATaskQueued")).isInstanceOf(LeakedWorkError.class)
                .hasMessage("Test 'PumpLeaks > leavesATaskQueued(ManualPump)' left work running; a test must finish"
                        + " or cancel what it starts:\n  - 1 task queued on pump 'ui' and never run (runUntilIdle() runs them)");
        assertThat(failureOf(results, "leavesATimerPending")).isInstanceOf(LeakedWorkError.class)
                .hasMessageEndingWith("\n  - 1 timer pending on pump 'ui' (advanceTimeBy(...) or advanceUntilIdle()"
                        + " fires them; or cancel them)");
        LeakedWorkError both = (LeakedWorkError) failureOf(results, "leavesThreeTasksAndTwoTimers");
        assertThat(both.testName()).isEqualTo("PumpLeaks > leavesThreeTasksAndTwoTimers(ManualPump)");
        assertThat(both.leaks()).containsExactly(
                "3 tasks queued on pump 'ui' and never run (runUntilIdle() runs them)",
                "2 timers pending on pump 'ui' (advanceTimeBy(...) or advanceUntilIdle() fires them; or cancel them)");
    }

    @Sample
    @CorobridgeTest
    static class DrainedInAfterEach {
        private ManualPump ui;

        @Test
        void leavesATaskThatAfterEachRuns(ManualPump ui) {
            this.ui = ui;
            ui.execute(RAN::incrementAndGet);
        }

        @AfterEach
        void drain() {
            ui.runUntilIdle();
        }
    }

    @Test
    void theCheckRunsAfterTheTestsAfterEachMethods() {
        assertThat(succeeded(Samples.run(DrainedInAfterEach.class))).containsExactly("leavesATaskThatAfterEachRuns");
        assertEquals(1, RAN.get());
    }

    @Sample
    @CorobridgeTest
    static class FailsAndLeaks {
        @Test
        void failsAnAssertionAndLeavesATask(ManualPump ui) {
            ui.execute(RAN::incrementAndGet);
            assertEquals(1, 2, "the test's own failure");
        }
    }

    @Test
    void aTestThatFailedKeepsItsFailureAndCarriesTheLeaksAsSuppressed() {
        Throwable failure = failureOf(Samples.run(FailsAndLeaks.class), "failsAnAssertionAndLeavesATask");
        assertThat(failure).hasMessageContaining("the test's own failure").isNotInstanceOf(LeakedWorkError.class);
        assertThat(failure.getSuppressed()).singleElement().isInstanceOf(LeakedWorkError.class)
                .satisfies(s -> assertThat(s).hasMessageContaining("1 task queued on pump 'ui'"));
    }

    @Sample
    @CorobridgeTest(ringFallback = true)
    static class RingLeaks {
        @TempDir
        Path dir;

        @Test
        void leavesAFileOpen(RingPool io) throws Exception {
            POOLS.add(io);
            done(io.openAsync(dir.resolve("left-open.txt"), CREATE, WRITE));
        }

        @Test
        void closesItsFile(RingPool io) throws Exception {
            POOLS.add(io);
            RingFile f = done(io.openAsync(dir.resolve("closed.txt"), CREATE, WRITE));
            done(f.writeFullyAsync(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8)), 0));
            done(f.closeAsync());
            assertEquals("hello", Files.readString(dir.resolve("closed.txt")));
        }
    }

    @Test
    void anOpenRingFileFailsTheTestAndEveryPoolIsClosedAfterItsTest() {
        EngineExecutionResults results = Samples.run(RingLeaks.class);
        assertThat(succeeded(results)).containsExactly("closesItsFile");
        assertThat(((LeakedWorkError) failureOf(results, "leavesAFileOpen")).leaks())
                .containsExactly("1 ring file open in ring pool 'test-ring' (close every RingFile the test opens)");
        assertThat(POOLS).hasSize(2).doesNotHaveDuplicates().allSatisfy(p -> {
            assertThat(p.getMetrics().transport()).isEqualTo(Transport.FALLBACK);
            assertThat(p.isTerminated()).as(p + " closed after its test").isTrue();
            assertThat(p.getMetrics().openFiles()).isZero();
        });
    }

    @Sample
    @CorobridgeTest
    static class DefaultTransport {
        @TempDir
        Path dir;

        @Test
        void closesItsFile(RingPool io) throws Exception {
            POOLS.add(io);
            RingFile f = done(io.openAsync(dir.resolve("closed.txt"), CREATE, WRITE));
            done(f.closeAsync());
        }
    }

    @Test
    void aRingPoolUsesIoUringWhereAvailableUnlessTheTestAsksForTheFallback() {
        assertThat(succeeded(Samples.run(DefaultTransport.class))).containsExactly("closesItsFile");
        RingPool pool = POOLS.get(0);
        assertThat(pool.getMetrics().transport()).isEqualTo(IoUring.isAvailable() ? Transport.IO_URING : Transport.FALLBACK);
        assertThat(pool.getRings()).hasSize(1);
        assertThat(pool.isTerminated()).isTrue();
    }

    @Sample
    @CorobridgeTest
    static class InFlightLeak {
        @TempDir
        Path dir;

        @Test
        void leavesAReadInFlight(RingPool io) throws Exception {
            POOLS.add(io);
            // A FIFO opened for reading and writing (the open does not wait for a peer) that nobody
            // writes to: a read on it stays in the kernel until it is cancelled.
            Path fifo = dir.resolve("nobody-writes.fifo");
            Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
            assertEquals(0, mkfifo.waitFor(), "mkfifo " + fifo);
            RingFile f = done(io.openAsync(fifo, READ, WRITE));
            LEFT_IN_FLIGHT.add(f.readAsync(ByteBuffer.allocateDirect(16), 0));
        }
    }

    @Test
    void aRingOperationLeftInFlightFailsTheTestAndIsEndedByThePoolsClose() {
        // The fallback's positional read refuses a FIFO (ESPIPE); io_uring's waits for data.
        assumeTrue(IoUring.isAvailable(), "needs io_uring: " + IoUring.unavailabilityCause());
        EngineExecutionResults results = Samples.run(InFlightLeak.class);
        assertThat(((LeakedWorkError) failureOf(results, "leavesAReadInFlight")).leaks()).containsExactly(
                "1 ring file open in ring pool 'test-ring' (close every RingFile the test opens)",
                "1 ring operation in flight in ring pool 'test-ring' (await or cancel every operation the test starts)");
        assertThat(LEFT_IN_FLIGHT).singleElement().satisfies(op -> assertThat(op.isDone()).as(op + " settled").isTrue());
        assertThat(POOLS).singleElement().satisfies(p -> {
            assertThat(p.isTerminated()).isTrue();
            assertThat(p.getMetrics().inFlight()).isZero();
        });
    }

    /** Waits for a ring operation the sample started (bounded); the one blocking wait of these tests. */
    static <T> T done(RingOp<T> op) throws Exception {
        return op.join(Duration.ofSeconds(30));
    }
}
