package dev.corobridge.stream;

import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;

/**
 * What {@link EventStream#nextAsync()} (or {@code AsyncChannel.nextAsync()}) delivers: the next value, the
 * end of the stream, or the failure that ended it. The end is a normal outcome, not an exception,
 * so a Java loop reads
 *
 * <pre>{@code
 * for (var e = events.nextAsync().join(); e.hasValue(); e = events.nextAsync().join()) {
 *     handle(e.value());
 * }
 * }</pre>
 *
 * <p>{@link #hasValue()} <b>rethrows a failure</b>, so that loop cannot mistake a failed source for
 * one that ended normally; match on the three records to handle a failure as a value instead.
 *
 * @param <T> the value type
 */
public sealed interface Next<T> {

    /** The next value. */
    record Value<T>(T value) implements Next<T> {
    }

    /**
     * The end: the source closed ({@code cancellation} is {@code null}), or the stream or its
     * source was cancelled ({@code cancellation} says why — e.g. the subscriber closed it).
     */
    record End<T>(CancellationException cancellation) implements Next<T> {
    }

    /** The source failed with {@code error}; the stream has ended. */
    record Failed<T>(Throwable error) implements Next<T> {
        public Failed {
            Objects.requireNonNull(error, "error");
        }
    }

    /** {@link Value} of {@code value}. */
    static <T> Next<T> value(T value) {
        return new Value<>(value);
    }

    /** A normal {@link End}. */
    static <T> Next<T> end() {
        return new End<>(null);
    }

    /**
     * {@code true} for a value, {@code false} at the end.
     *
     * @throws RuntimeException the failure of a {@link Failed} (a checked one wrapped in
     *                          {@link CompletionException})
     */
    default boolean hasValue() {
        return switch (this) {
            case Value<T> v -> true;
            case End<T> e -> false;
            case Failed<T> f -> throw rethrowable(f.error());
        };
    }

    /** Whether this is the {@link End} (not a failure). */
    default boolean isEnd() {
        return this instanceof End;
    }

    /**
     * The value.
     *
     * @throws NoSuchElementException at the {@link End}
     * @throws RuntimeException       the failure of a {@link Failed}, as {@link #hasValue()}
     */
    default T value() {
        return switch (this) {
            case Value<T> v -> v.value();
            case End<T> e -> throw new NoSuchElementException("the stream has ended"
                    + (e.cancellation() != null ? ": " + e.cancellation().getMessage() : ""));
            case Failed<T> f -> throw rethrowable(f.error());
        };
    }

    /** The error of a {@link Failed}, else {@code null}. */
    default Throwable errorOrNull() {
        return this instanceof Failed<T> f ? f.error() : null;
    }

    private static RuntimeException rethrowable(Throwable error) {
        if (error instanceof RuntimeException re) {
            return re;
        }
        if (error instanceof Error e) {
            throw e;
        }
        return new CompletionException(error);
    }
}
