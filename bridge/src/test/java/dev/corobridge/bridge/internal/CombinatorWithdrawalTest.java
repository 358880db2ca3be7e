package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Task;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code Task.anyOf} and {@code Task.allOf} withdraw their callbacks from the inputs that are
 * still pending once their result is decided: combining a long-lived input again and again (a
 * shutdown signal raced against each request's work, say) does not pile callbacks up on it.
 */
class CombinatorWithdrawalTest {

    /** What a long-lived input with no other waiter may keep at most. */
    private static final int BOUND = 100;
    private static final int ROUNDS = 20_000;

    @Test
    void whenAnyDecidedByAnotherInputLeavesNothingOnTheLongLivedOne() {
        Promise<String> longLived = new Promise<>();
        for (int i = 0; i < ROUNDS; i++) {
            Promise<String> work = new Promise<>();
            Task<String> first = Task.anyOf(longLived, work);
            work.complete("done " + i);
            assertEquals(new Outcome.Success<>("done " + i), first.outcomeOrNull());
        }
        int kept = RetainedCallbacks.of(longLived);
        assertTrue(kept < BOUND, "the long-lived input kept " + kept + " callbacks after " + ROUNDS + " decided anyOf");
        // It still works as an input afterwards.
        Task<String> last = Task.anyOf(longLived, new Promise<>());
        longLived.complete("stop");
        assertEquals(new Outcome.Success<>("stop"), last.outcomeOrNull());
    }

    @Test
    void whenAllFailedByAnotherInputLeavesNothingOnTheLongLivedOne() {
        Promise<String> longLived = new Promise<>();
        for (int i = 0; i < ROUNDS; i++) {
            Promise<String> work = new Promise<>();
            Task<List<String>> all = Task.allOf(longLived, work);
            work.fail(new IllegalStateException("failed " + i));
            assertTrue(all.outcomeOrNull() instanceof Outcome.Failure<List<String>>, "round " + i + ": " + all);
        }
        int kept = RetainedCallbacks.of(longLived);
        assertTrue(kept < BOUND, "the long-lived input kept " + kept + " callbacks after " + ROUNDS + " failed allOf");
    }

    @Test
    void cancellingTheCombinedTaskWithdrawsItsCallbacksToo() {
        Promise<String> longLived = new Promise<>();
        for (int i = 0; i < ROUNDS; i++) {
            Task<String> any = Task.anyOf(longLived, new Promise<String>());
            assertTrue(any.cancel());
            Task<List<String>> all = Task.allOf(longLived, new Promise<String>());
            assertTrue(all.cancel());
        }
        int kept = RetainedCallbacks.of(longLived);
        assertTrue(kept < BOUND, "the long-lived input kept " + kept + " callbacks after " + (2 * ROUNDS) + " cancelled combinations");
    }

    @Test
    void aCombinationDecidedWhileItRegistersStillWithdrawsFromTheRest() {
        Promise<String> done = new Promise<>();
        done.complete("at once");
        Promise<String> longLived = new Promise<>();
        for (int i = 0; i < ROUNDS; i++) {
            // The first input decides during the registration loop, before the second is registered.
            assertEquals(new Outcome.Success<>("at once"), Task.anyOf(done, longLived).outcomeOrNull());
        }
        int kept = RetainedCallbacks.of(longLived);
        assertTrue(kept < BOUND, "the long-lived input kept " + kept + " callbacks");
    }
}
