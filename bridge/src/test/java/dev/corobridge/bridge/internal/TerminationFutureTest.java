package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every exit of {@link TerminationFuture}: value, failure, a second settle, a timed-out wait, and the race it exists for. */
class TerminationFutureTest {

    @Test
    void everyFutureHandedOutCompletesWithTheValueBeforeItCountsAsSettled() throws Exception {
        TerminationFuture<String> t = new TerminationFuture<>();
        CompletableFuture<String> a = t.handOut();
        CompletableFuture<String> b = t.handOut();
        assertFalse(t.isSettled());
        assertFalse(t.await(0), "not settled: a zero wait returns at once");
        assertFalse(t.await(-5), "a negative wait too");
        assertTrue(a.complete("mine"), "a caller may complete its own future");
        assertFalse(b.isDone(), "and nobody else's");
        t.complete("done");
        t.fail(new IllegalStateException("late")); // settles once: ignored
        assertTrue(t.isSettled());
        assertTrue(t.await(0));
        assertFalse(t.isFailed());
        assertEquals("mine", a.get(0, TimeUnit.SECONDS));
        assertEquals("done", b.get(0, TimeUnit.SECONDS));
        assertEquals("done", t.handOut().get(0, TimeUnit.SECONDS), "handed out after: complete at once");
    }

    @Test
    void aFailureReachesEveryFuture() {
        TerminationFuture<Void> t = new TerminationFuture<>();
        CompletableFuture<Void> before = t.handOut();
        IllegalStateException boom = new IllegalStateException("boom");
        t.fail(boom);
        t.complete(null); // ignored
        assertTrue(t.isFailed());
        assertSame(boom, assertThrows(ExecutionException.class, () -> before.get(0, TimeUnit.SECONDS)).getCause());
        assertSame(boom, assertThrows(ExecutionException.class, () -> t.handOut().get(0, TimeUnit.SECONDS)).getCause());
    }

    /** Callers hand out futures while another thread settles: once settled is seen, each is complete. */
    @Test
    void futuresHandedOutWhileItSettlesAreCompleteOnceItIsSeenSettled() throws Exception {
        for (int round = 0; round < 2_000; round++) {
            TerminationFuture<Integer> t = new TerminationFuture<>();
            List<CompletableFuture<Integer>> got = new ArrayList<>();
            Thread settler = Thread.ofPlatform().start(() -> t.complete(7));
            while (!t.isSettled()) {
                got.add(t.handOut());
            }
            for (CompletableFuture<Integer> f : got) {
                assertEquals(7, f.getNow(-1), "round " + round);
            }
            settler.join();
        }
    }

    @Test
    void anUnlimitedWaitReturnsOnceSettled() throws Exception {
        TerminationFuture<Integer> t = new TerminationFuture<>();
        Thread.ofPlatform().start(() -> t.complete(1));
        assertTrue(t.await(Long.MAX_VALUE));
        assertEquals(1, t.handOut().getNow(-1));
    }
}
