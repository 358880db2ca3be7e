package dev.corobridge.bridge;

import java.util.Objects;
import java.util.concurrent.CancellationException;

/**
 * How an asynchronous operation ended: with a value, a failure, or cancellation. Exactly one
 * outcome is ever decided for a {@link Promise} or {@link Task}.
 *
 * <p>Cancellation is a normal outcome, not a failure: it carries a {@link CancellationException}
 * (kotlinx's {@code CancellationException} is the same class), whose subtypes say why — plain
 * cancel or {@link ContextShutdownException shutdown}. A time limit that passed
 * ({@link TaskTimeoutException}) is a failure: the awaiter of a limited task did not cancel it.
 *
 * <pre>{@code
 * task.onComplete(outcome -> {
 *     switch (outcome) {
 *         case Outcome.Success<Note>(var note) -> show(note);
 *         case Outcome.Failure<Note>(var error) -> report(error);
 *         case Outcome.Cancelled<Note>(var why) -> { }
 *     }
 * });
 * }</pre>
 *
 * @param <T> the value type
 */
public sealed interface Outcome<T> {

    /** Completed with {@code value} (may be {@code null}). */
    record Success<T>(T value) implements Outcome<T> {
    }

    /** Failed with {@code error}, never a {@link CancellationException}. */
    record Failure<T>(Throwable error) implements Outcome<T> {
        public Failure {
            Objects.requireNonNull(error, "error");
            if (error instanceof CancellationException) {
                throw new IllegalArgumentException("a CancellationException is a Cancelled outcome, not a Failure");
            }
        }
    }

    /** Cancelled, with the reason. */
    record Cancelled<T>(CancellationException cause) implements Outcome<T> {
        public Cancelled {
            Objects.requireNonNull(cause, "cause");
        }
    }

    /** The outcome for {@code error}: {@link Cancelled} for a {@link CancellationException}, else {@link Failure}. */
    static <T> Outcome<T> ofError(Throwable error) {
        Objects.requireNonNull(error, "error");
        return error instanceof CancellationException ce ? new Cancelled<>(ce) : new Failure<>(error);
    }

    /** Whether this is a {@link Success}. */
    default boolean isSuccess() {
        return this instanceof Success;
    }

    /** Whether this is a {@link Cancelled}. */
    default boolean isCancelled() {
        return this instanceof Cancelled;
    }

    /** The error of a {@link Failure} or the cause of a {@link Cancelled}; {@code null} for a success. */
    default Throwable errorOrNull() {
        return switch (this) {
            case Success<T> s -> null;
            case Failure<T> f -> f.error();
            case Cancelled<T> c -> c.cause();
        };
    }
}
