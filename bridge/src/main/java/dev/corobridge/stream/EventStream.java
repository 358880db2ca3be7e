package dev.corobridge.stream;

import dev.corobridge.bridge.Awaitable;

/**
 * A subscriber's view of a stream of events, read one at a time: {@link #nextAsync()} gives an
 * awaitable {@link Next} — a value, the end, or a failure — so the end (and a cancelled
 * subscription) arrives through the same path as a value, never as an exception to catch.
 *
 * <pre>{@code
 * try (EventStream<State> states = source.subscribe()) {           // Java, on a virtual thread
 *     for (var e = states.nextAsync().join(); e.hasValue(); e = states.nextAsync().join()) {
 *         render(e.value());
 *     }
 * }                                                                // closing unsubscribes
 * // Kotlin: source.asFlow().collect { render(it) }  — unsubscribes when the collection stops
 * }</pre>
 *
 * <ul>
 *   <li><b>Unsubscribing</b> is closing the stream ({@link #close()}, e.g. by try-with-resources):
 *       no token to keep. A pending and every later {@code nextAsync()} then return
 *       {@link Next.End} with the cancellation; buffered events are dropped.</li>
 *   <li><b>Back-pressure.</b> Each {@code nextAsync()} asks for one event; a stream made from a
 *       {@code Flow} ({@link EventStreams}) only lets its source run as far
 *       ahead as its buffer.</li>
 *   <li><b>Cancelling a {@code nextAsync()}</b> (its awaitable) withdraws that request if no event was
 *       handed to it yet; otherwise {@code cancel()} returns {@code false} and the event is its
 *       value — an event is never lost between two {@code nextAsync()} calls. The stream stays open.</li>
 *   <li><b>Threads.</b> A {@code nextAsync()} awaitable completes on the thread that delivered the
 *       event; from Kotlin, {@code stream.next()} suspends and resumes on the caller's dispatcher.</li>
 * </ul>
 *
 * <p>One consumer at a time: events are not duplicated between concurrent {@code nextAsync()} callers
 * (each event goes to one of them).
 *
 * @param <T> the event type
 */
public interface EventStream<T> extends AutoCloseable {

    /**
     * The next event: {@link Next.Value}, {@link Next.End} (the source closed, or this stream was
     * closed or cancelled) or {@link Next.Failed}. Kotlin suspends with {@code next()} or collects
     * {@code consumeAsFlow()} instead.
     */
    Awaitable<Next<T>> nextAsync();

    /** Unsubscribes: pending and later {@link #nextAsync()} calls return {@link Next.End}. Idempotent. */
    @Override
    void close();
}
