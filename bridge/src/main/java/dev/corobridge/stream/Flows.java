package dev.corobridge.stream;

import java.util.Objects;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.flow.Flow;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * Kotlin {@code Flow}s for Java: as a Reactor {@link Flux} or Reactive Streams {@link Publisher}
 * (with back-pressure: the flow runs only as far as the subscriber requests), from a publisher,
 * and produced by Java code through a {@link FlowEmitter}. For reading a flow one event at a time
 * see {@link EventStreams}.
 *
 * <pre>{@code
 * Flux<Quote> quotes = Flows.toFlux(quoteService.quotes());      // Kotlin Flow -> Flux
 * quotes.limitRate(8).subscribe(this::show);                      // requests 8 at a time
 * Flow<Tick> ticks = Flows.create(0, emitter -> ...);             // Java -> Kotlin Flow
 * }</pre>
 *
 * Built on kotlinx-coroutines-reactor ({@code asFlux}, {@code asPublisher}, {@code asFlow}) and
 * kotlinx's {@code callbackFlow}. Each subscription collects the flow anew (flows are cold);
 * cancelling the subscription cancels the collection.
 */
public final class Flows {

    private Flows() {
    }

    /**
     * {@code flow} as a {@link Flux}: collected for each subscriber, as far as it requests, on the
     * subscriber's thread (kotlinx's {@code Dispatchers.Unconfined}); disposing cancels it.
     */
    public static <T> Flux<T> toFlux(Flow<? extends T> flow) {
        return StreamFlows.toFlux(Objects.requireNonNull(flow, "flow"), null);
    }

    /** {@link #toFlux(Flow)} with the flow collected on {@code dispatcher} (e.g. a pump's). */
    public static <T> Flux<T> toFlux(Flow<? extends T> flow, CoroutineDispatcher dispatcher) {
        return StreamFlows.toFlux(Objects.requireNonNull(flow, "flow"), Objects.requireNonNull(dispatcher, "dispatcher"));
    }

    /** {@code flow} as a Reactive Streams {@link Publisher} (see {@link #toFlux(Flow)}). */
    public static <T> Publisher<T> toPublisher(Flow<? extends T> flow) {
        return StreamFlows.toPublisher(Objects.requireNonNull(flow, "flow"));
    }

    /** {@code publisher} as a Kotlin {@code Flow}, requesting as the collector consumes. */
    public static <T> Flow<T> fromPublisher(Publisher<? extends T> publisher) {
        @SuppressWarnings("unchecked") // a publisher of T subtypes is a publisher of T (it only produces)
        Publisher<T> p = (Publisher<T>) Objects.requireNonNull(publisher, "publisher");
        return StreamFlows.fromPublisher(p);
    }

    /** {@link #create(int, FlowProducer)} with no buffer: each {@code emit} waits for the collector. */
    public static <T> Flow<T> create(FlowProducer<T> producer) {
        return create(0, producer);
    }

    /**
     * A cold flow produced by Java code: each collection calls {@code producer} with a fresh
     * {@link FlowEmitter} whose buffer holds {@code capacity} values ({@code 0}: each emission waits
     * for the collector; {@link Integer#MAX_VALUE}: unbounded).
     *
     * @throws IllegalArgumentException if {@code capacity} is negative
     */
    public static <T> Flow<T> create(int capacity, FlowProducer<T> producer) {
        Objects.requireNonNull(producer, "producer");
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity must not be negative, got " + capacity);
        }
        return StreamFlows.create(capacity, producer);
    }
}
