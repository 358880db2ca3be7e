package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/** Every exit of {@link TerminationFuture}: settled, failed, settled twice, and what callers cannot do to it. */
class TerminationFutureTest {

    @Test
    void onlyItsOwnerCompletesIt() throws Exception {
        TerminationFuture<String> t = new TerminationFuture<>();
        assertFalse(t.complete("caller"));
        assertFalse(t.completeExceptionally(new IllegalStateException("caller")));
        assertFalse(t.cancel(true));
        assertThrows(UnsupportedOperationException.class, () -> t.obtrudeValue("caller"));
        assertThrows(UnsupportedOperationException.class, () -> t.obtrudeException(new IllegalStateException()));
        assertThrows(UnsupportedOperationException.class, () -> t.completeAsync(() -> "caller"));
        assertThrows(UnsupportedOperationException.class, () -> t.completeAsync(() -> "caller", Runnable::run));
        assertFalse(t.isDone(), "nothing a caller did completed it");

        assertTrue(t.settle("done"));
        assertFalse(t.settle("again"), "the first settle decides");
        assertFalse(t.fail(new IllegalStateException("late")));
        assertEquals("done", t.get(0, TimeUnit.SECONDS));
    }

    @Test
    void aFailureIsTheOutcome() {
        TerminationFuture<Void> t = new TerminationFuture<>();
        IllegalStateException boom = new IllegalStateException("boom");
        assertTrue(t.fail(boom));
        assertFalse(t.settle(null));
        assertSame(boom, assertThrows(ExecutionException.class, () -> t.get(0, TimeUnit.SECONDS)).getCause());
    }

    /** A caller's timeout applies to its own copy, not to the termination everyone shares. */
    @Test
    void timeoutsApplyToACopy() throws Exception {
        TerminationFuture<String> t = new TerminationFuture<>();
        CompletableFuture<String> timedOut = t.orTimeout(1, TimeUnit.MILLISECONDS);
        CompletableFuture<String> defaulted = t.completeOnTimeout("default", 1, TimeUnit.MILLISECONDS);
        assertNotSame(t, timedOut);
        assertInstanceOf(TimeoutException.class, assertThrows(ExecutionException.class, () -> timedOut.get(30, TimeUnit.SECONDS)).getCause());
        assertEquals("default", defaulted.get(30, TimeUnit.SECONDS));
        assertFalse(t.isDone(), "the termination itself did not time out");
        t.settle("done");
        assertEquals("done", t.get(0, TimeUnit.SECONDS));
    }

    /** Stages made from it are plain futures, which their callers may complete. */
    @Test
    void dependentStagesArePlainFutures() {
        TerminationFuture<String> t = new TerminationFuture<>();
        CompletableFuture<Integer> length = t.thenApply(String::length);
        assertFalse(length instanceof TerminationFuture);
        assertTrue(length.complete(-1));
        assertTrue(t.copy().complete("a copy"));
        assertFalse(t.isDone());
    }
}
