package dev.corobridge.bridge;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The settle calls of one Lincheck invocation on a {@link Promise} ({@code complete}, {@code fail},
 * {@code cancel}), made for the operations of the test class, and what the check after the
 * interleaving needs of them: how many returned {@code true}, and when the first one started on a
 * logical clock that the test's other operations read too, so that a withdrawal that returned before
 * any settle call started can be told from one that raced them.
 *
 * <p>Each settle call first reads the clock (the first one records the reading), then settles, then
 * counts itself if it won. The {@code @Operation} methods stay on each test class and call these:
 * Lincheck would find them inherited from a base class too, but it orders the operations it draws
 * random scenarios from by class (the test class first), so moving them would change the scenarios
 * its fixed seed draws.
 *
 * <p>Thread-safe: the clock and the counts are atomics, since the settle calls run on Lincheck's
 * threads.
 */
public final class SettleCalls {

    private static final IllegalStateException FAILURE = new IllegalStateException("failed");

    private final Promise<Integer> promise;
    private final AtomicLong clock = new AtomicLong();
    /** The clock when the first settle call started; 0 while none has. */
    private final AtomicLong firstStart = new AtomicLong();
    /** Settle calls that returned {@code true}: must end as 1 if the promise is decided, else 0. */
    private final AtomicInteger winners = new AtomicInteger();

    public SettleCalls(Promise<Integer> promise) {
        this.promise = promise;
    }

    public boolean complete(int value) {
        starting();
        return won(promise.complete(value));
    }

    public boolean fail() {
        starting();
        return won(promise.fail(FAILURE));
    }

    public boolean cancel() {
        starting();
        return won(promise.cancel());
    }

    /** The next reading of the logical clock. */
    public long tick() {
        return clock.incrementAndGet();
    }

    /** How many settle calls returned {@code true}. */
    public int winners() {
        return winners.get();
    }

    /**
     * Whether a withdrawal that returned at clock reading {@code withdrawnAt} (0: not withdrawn)
     * returned before any settle call started.
     */
    public boolean withdrawnBeforeAnySettle(long withdrawnAt) {
        long start = firstStart.get();
        return withdrawnAt != 0 && (start == 0 || withdrawnAt < start);
    }

    /** An outcome as the checks' messages name it ({@code null}: pending). */
    public static String describe(Outcome<Integer> o) {
        return switch (o) {
            case null -> "pending";
            case Outcome.Success<Integer> s -> "success " + s.value();
            case Outcome.Failure<Integer> f -> "failure " + f.error().getMessage();
            case Outcome.Cancelled<Integer> c -> "cancelled";
        };
    }

    private void starting() {
        firstStart.compareAndSet(0, tick());
    }

    private boolean won(boolean decided) {
        if (decided) {
            winners.incrementAndGet();
        }
        return decided;
    }
}
