package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * A stage chained on a long-lived task ({@code thenOn}, {@code thenComposeOn}, {@code recoverOn})
 * and cancelled before that task completes leaves nothing on it: the UI pattern of chaining on a
 * "ready" task and cancelling when a view closes kept every cancelled stage (about 1.3 KB each,
 * with its function and what that captured) until the long-lived task completed.
 */
class CancelledStageWithdrawalTest {

    /** What a long-lived task with no other waiter may keep at most. */
    private static final int BOUND = 100;
    private static final int ROUNDS = 20_000;
    private static final Executor INLINE = Runnable::run;

    @Test
    void cancelledStagesLeaveNothingOnThePendingTask() {
        Promise<String> ready = new Promise<>();
        Task<String> longLived = Task.from(ready);
        for (int i = 0; i < ROUNDS; i++) {
            assertTrue(longLived.thenOn(INLINE, v -> v + "!").cancel());
            assertTrue(longLived.thenComposeOn(INLINE, v -> new Promise<String>()).cancel());
            assertTrue(longLived.recoverOn(INLINE, e -> "recovered").cancel());
        }
        int kept = RetainedCallbacks.of(longLived);
        assertTrue(kept < BOUND, "the long-lived task kept " + kept + " callbacks after " + (3 * ROUNDS) + " cancelled stages");
        assertTrue(longLived.thenOn(INLINE, v -> v).cancel(), "a stage cancelled before its source completes is cancelled");

        // A stage that was not cancelled still runs, and one cancelled stays cancelled.
        Task<String> live = longLived.thenOn(INLINE, v -> v + "!");
        Task<String> cancelled = longLived.thenOn(INLINE, v -> v + "?");
        assertTrue(cancelled.cancel());
        ready.complete("ready");
        assertEquals(new Outcome.Success<>("ready!"), live.outcomeOrNull());
        assertTrue(cancelled.outcomeOrNull() instanceof Outcome.Cancelled<String>, cancelled.toString());
    }
}
