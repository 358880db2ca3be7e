package dev.corobridge.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Awaitable;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Promise;
import dev.corobridge.bridge.Registration;
import dev.corobridge.bridge.Tasks;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The awaitable of an operation that did not wait behaves exactly as a Promise settled with the
 * same outcome, at every exit: value, unchecked and checked failure, cancellation; callbacks run
 * once, at once, on the caller's thread; a callback that throws goes to the uncaught handler.
 */
class CompletedAwaitableTest {

    @AfterEach
    void restoreHandler() {
        Tasks.resetUncaughtFailureHandler();
    }

    static Stream<Outcome<String>> outcomes() {
        return Stream.of(
                new Outcome.Success<>("v"),
                new Outcome.Success<>(null),
                new Outcome.Failure<>(new IllegalStateException("broken")),
                new Outcome.Failure<>(new IOException("io")),
                new Outcome.Cancelled<>(new CancellationException("gone")));
    }

    @ParameterizedTest
    @MethodSource("outcomes")
    void behavesAsASettledPromise(Outcome<String> outcome) throws Exception {
        Promise<String> promise = new Promise<>();
        assertTrue(promise.settle(outcome));
        Awaitable<String> completed = new CompletedAwaitable<>(outcome);

        assertTrue(completed.isDone());
        assertSame(outcome, completed.outcomeOrNull());
        assertEquals(describe(() -> promise.join()), describe(() -> completed.join()));
        assertEquals(describe(() -> promise.join(Duration.ZERO)), describe(() -> completed.join(Duration.ZERO)));
        assertEquals(describe(promise::resultNow), describe(completed::resultNow));

        assertFalse(completed.cancel(), "decided before it existed");
        assertFalse(promise.cancel());
        assertSame(outcome, completed.outcomeOrNull(), "cancel changed nothing");

        List<Object> seen = new ArrayList<>();
        Registration r = completed.onComplete(o -> seen.add(List.of(o, Thread.currentThread())));
        assertEquals(List.of(List.of(outcome, Thread.currentThread())), seen, "once, now, on this thread");
        r.dispose(); // withdrawing after the fact changes nothing
        assertEquals(1, seen.size());
    }

    @Test
    void aCallbackThatThrowsIsReportedAndTheNextStillRuns() {
        List<Throwable> reported = new ArrayList<>();
        Tasks.setUncaughtFailureHandler((source, error) -> reported.add(error));
        Awaitable<String> completed = Completions.value("v");
        IllegalArgumentException boom = new IllegalArgumentException("boom");
        completed.onComplete(o -> {
            throw boom;
        });
        List<Outcome<String>> later = new ArrayList<>();
        completed.onComplete(later::add);
        assertEquals(List.of(boom), reported);
        assertEquals(1, later.size());
    }

    @Test
    void theFastPathsAreCompletedAwaitables() {
        assertInstanceOf(CompletedAwaitable.class, Completions.value(1));
        assertInstanceOf(CompletedAwaitable.class, Completions.done());
        Awaitable<Object> failed = Completions.failed(new CancellationException("c"));
        assertInstanceOf(Outcome.Cancelled.class, failed.outcomeOrNull(), "a CancellationException cancels");
        assertInstanceOf(Outcome.Failure.class, Completions.failed(new IllegalStateException()).outcomeOrNull());
        assertThrows(NullPointerException.class, () -> new CompletedAwaitable<>(null));
        assertThrows(NullPointerException.class, () -> Completions.value(1).onComplete(null));
    }

    private interface Call {
        Object call() throws Exception;
    }

    /** The value, or the class, message and cause class of what was thrown. */
    private static String describe(Call call) {
        try {
            return "value " + call.call();
        } catch (Exception e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            return "threw " + e.getClass().getName() + ": " + e.getMessage()
                    + " cause " + (cause.getCause() == null ? null : cause.getCause().getClass().getName());
        }
    }
}
