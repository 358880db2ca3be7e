package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

import dev.corobridge.demo.web.transport.ShutdownDrain.Outcome;
import dev.corobridge.demo.web.transport.ShutdownDrain.Step;

/** The decisions of {@link ShutdownDrain} at given instants, and its ends with a real tracker. */
class ShutdownDrainTest {

    private static final long QUIET = 500;
    private static final long DEADLINE = 10_000;

    /** A drain whose listening socket is not bound (so it cannot stop accepting; the steps are the same). */
    private static ShutdownDrain drain(ServiceState state, ConnectionTracker tracker, Duration quiet, Duration timeout) {
        return new ShutdownDrain(state, tracker, new ListeningSocket(), quiet, timeout);
    }

    @Test
    void busyConnectionsAreWaitedForUntilTheDeadline() {
        assertThat(ShutdownDrain.step(1_000, 3, 900, QUIET, DEADLINE)).isEqualTo(Step.awaitIdleUntil(DEADLINE));
    }

    @Test
    void withNothingBusyItWaitsForTheQuietPeriodAfterTheLastActivity() {
        Step s = ShutdownDrain.step(1_000, 0, 900, QUIET, DEADLINE);
        assertThat(s.done()).isFalse();
        assertThat(s).isEqualTo(Step.sleepUntil(1_400));
    }

    @Test
    void quietForTheQuietPeriodIsDrained() {
        assertThat(ShutdownDrain.step(1_400, 0, 900, QUIET, DEADLINE)).isEqualTo(Step.end(Outcome.DRAINED));
        assertThat(ShutdownDrain.step(5_000, 0, 900, QUIET, DEADLINE)).isEqualTo(Step.end(Outcome.DRAINED));
    }

    @Test
    void activityDuringTheQuietPeriodStartsItAgain() {
        assertThat(ShutdownDrain.step(1_399, 0, 1_300, QUIET, DEADLINE)).isEqualTo(Step.sleepUntil(1_800));
    }

    @Test
    void theDeadlineEndsTheDrainWhateverIsBusy() {
        assertThat(ShutdownDrain.step(DEADLINE, 1, 900, QUIET, DEADLINE)).isEqualTo(Step.end(Outcome.TIMED_OUT));
        assertThat(ShutdownDrain.step(DEADLINE, 0, DEADLINE - 1, QUIET, DEADLINE)).isEqualTo(Step.end(Outcome.TIMED_OUT));
    }

    @Test
    void aQuietPeriodEndingAfterTheDeadlineWaitsOnlyUntilTheDeadline() {
        assertThat(ShutdownDrain.step(9_800, 0, 9_700, QUIET, DEADLINE)).isEqualTo(Step.sleepUntil(DEADLINE));
    }

    @Test
    void clockReadingsAreComparedByDifferenceAcrossTheirOverflow() {
        long last = Long.MAX_VALUE - 100;
        long deadline = last + 10_000; // overflows to a negative reading
        assertThat(ShutdownDrain.step(last + 50, 0, last, QUIET, deadline)).isEqualTo(Step.sleepUntil(last + QUIET));
        assertThat(ShutdownDrain.step(last + 50, 2, last, QUIET, deadline)).isEqualTo(Step.awaitIdleUntil(deadline));
        assertThat(ShutdownDrain.step(last + QUIET, 0, last, QUIET, deadline)).isEqualTo(Step.end(Outcome.DRAINED));
        assertThat(ShutdownDrain.step(deadline, 1, last, QUIET, deadline)).isEqualTo(Step.end(Outcome.TIMED_OUT));
    }

    @Test
    @Timeout(60)
    void drainsOnceTheLastBusyConnectionIsAnsweredAndTheConnectionsAreQuiet() throws Exception {
        ConnectionTracker tracker = new ConnectionTracker();
        ServiceState state = new ServiceState();
        tracker.opened();
        ShutdownDrain drain = drain(state, tracker, Duration.ofMillis(20), Duration.ofHours(1));
        CompletableFuture<Outcome> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                return drain.drain();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        });
        assertThat(outcome).isNotDone(); // the busy connection holds it (its deadline is an hour away)
        tracker.answered();
        assertThat(outcome.get(30, TimeUnit.SECONDS)).isEqualTo(Outcome.DRAINED);
    }

    @Test
    @Timeout(60)
    void aBusyConnectionThatStaysBusyEndsTheDrainAtItsTimeout() throws Exception {
        ConnectionTracker tracker = new ConnectionTracker();
        tracker.opened();
        ShutdownDrain drain = drain(new ServiceState(), tracker, Duration.ofMillis(20), Duration.ofMillis(50));
        assertThat(drain.drain()).isEqualTo(Outcome.TIMED_OUT);
        assertThat(tracker.busy()).isEqualTo(1);
    }

    @Test
    @Timeout(60)
    void stopTurnsTheServiceOffAndCallsBackWhenDrained() throws Exception {
        ConnectionTracker tracker = new ConnectionTracker();
        ServiceState state = new ServiceState();
        ShutdownDrain drain = drain(state, tracker, Duration.ofMillis(20), Duration.ofHours(1));
        drain.start();
        assertThat(drain.isRunning()).isTrue();
        CompletableFuture<Void> called = new CompletableFuture<>();
        drain.stop(() -> called.complete(null));
        assertThat(state.isShuttingDown()).isTrue();
        assertThat(drain.isRunning()).isFalse();
        called.get(30, TimeUnit.SECONDS);
    }

    @Test
    void itStopsBeforeTheWebServersGracefulShutdown() {
        ShutdownDrain drain = drain(new ServiceState(), new ConnectionTracker(), Duration.ofMillis(1), Duration.ZERO);
        assertThat(drain.getPhase()).isGreaterThan(
                WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE);
    }

    @Test
    void rejectsNonsenseDurations() {
        assertThatThrownBy(() -> drain(new ServiceState(), new ConnectionTracker(), Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("quiet period");
        assertThatThrownBy(() -> drain(new ServiceState(), new ConnectionTracker(), Duration.ofMillis(1),
                Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    }
}
