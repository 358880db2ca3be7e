package dev.corobridge.stream;

import java.util.Objects;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.Dispatchers;
import kotlinx.coroutines.flow.Flow;

/**
 * Java access to Kotlin flows as {@link EventStream}s, read with back-pressure one {@code nextAsync()} at
 * a time. (A Reactive Streams publisher: through
 * {@code EventStreams.from(FlowPublishers.toFlow(publisher))}, corobridge-reactor.)
 *
 * <pre>{@code
 * try (EventStream<Quote> quotes = EventStreams.from(quoteService.quotes())) {   // a Kotlin Flow
 *     for (var q = quotes.nextAsync().join(); q.hasValue(); q = quotes.nextAsync().join()) { show(q.value()); }
 * }
 * }</pre>
 *
 * The flow is collected by a coroutine on the given dispatcher (default {@code Dispatchers.Default})
 * into a channel of {@code capacity} elements (default 0: the flow computes the next element
 * only when the previous one was taken). Closing the stream cancels the collection — the flow's
 * {@code finally} blocks run (a publisher's subscription is cancelled). The flow completing gives
 * {@link Next.End}; the flow failing gives {@link Next.Failed}.
 */
public final class EventStreams {

    private EventStreams() {
    }

    /** {@code flow} as a stream, collected on {@code Dispatchers.Default} without a buffer. */
    public static <T> EventStream<T> from(Flow<? extends T> flow) {
        return from(flow, Dispatchers.getDefault(), 0);
    }

    /**
     * {@code flow} as a stream, collected on {@code dispatcher} into a buffer of {@code capacity}.
     *
     * @throws IllegalArgumentException if {@code capacity} is negative
     */
    public static <T> EventStream<T> from(Flow<? extends T> flow, CoroutineDispatcher dispatcher, int capacity) {
        Objects.requireNonNull(flow, "flow");
        Objects.requireNonNull(dispatcher, "dispatcher");
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must not be negative, got " + capacity);
        }
        return new ChannelEventStream<>(StreamFlows.produce(flow, dispatcher, capacity), null, "flow");
    }
}
