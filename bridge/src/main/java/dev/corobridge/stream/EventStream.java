package dev.corobridge.stream;

import dev.corobridge.bridge.Awaitable;

/**
 * A subscriber's view of a stream of events, read one at a time: {@link #next()} gives an
 * awaitable {@link Next} — a value, the end, or a failure — so the end (and a cancelled
 * subscription) arrives through the same path as a value, never as an exception to catch.
 *
 * <pre>{@code
 * try (EventStream<State> states = source.subscribe()) {           // Java, on a virtual thread
 *     for (var e = states.next().await(); e.hasValue(); e = states.next().await()) {
 *         render(e.value());
 *     }
 * }                                                                // closing unsubscribes
 * // Kotlin: source.asFlow().collect { render(it) }  — unsubscribes when the collection stops
 * }</pre>
 *
 * <ul>
 *   <li><b>Unsubscribing</b> is closing the stream ({@link #close()}, e.g. by try-with-resources):
 *       no token to keep. A pending and every later {@code next()} then return
 *       {@link Next.End} with the cancellation; buffered events are dropped.</li>
 *   <li><b>Back-pressure.</b> Each {@code next()} asks for one event; a stream made from a
 *       {@code Flow} ({@link EventStreams}) only lets its source run as far
 *       ahead as its buffer.</li>
 *   <li><b>Cancelling a {@code next()}</b> (its awaitable) withdraws that request if no event was
 *       handed to it yet; otherwise {@code cancel()} returns {@code false} and the event is its
 *       value — an event is never lost between two {@code next()} calls. The stream stays open.</li>
 *   <li><b>Threads.</b> A {@code next()} awaitable completes on the thread that delivered the
 *       event; from Kotlin, {@code stream.next()} suspends and resumes on the caller's dispatcher.</li>
 * </ul>
 *
 * <p>One consumer at a time: events are not duplicated between concurrent {@code next()} callers
 * (each event goes to one of them).
 *
 * @param <T> the event type
 */
public interface EventStream<T> extends AutoCloseable {

    /**
     * The next event: {@link Next.Value}, {@link Next.End} (the source closed, or this stream was
     * closed or cancelled) or {@link Next.Failed}. Hidden from Kotlin, where {@code next()} suspends.
     */
    @kotlin.Deprecated(message = "Java face; Kotlin uses the suspending next() or consumeAsFlow()", level = kotlin.DeprecationLevel.HIDDEN)
    Awaitable<Next<T>> next();

    /** Unsubscribes: pending and later {@link #next()} calls return {@link Next.End}. Idempotent. */
    @Override
    void close();
}
