package dev.corobridge.reactor;

import java.util.Objects;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.flow.Flow;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * Kotlin {@code Flow}s for Java as a Reactor {@link Flux} or a Reactive Streams {@link Publisher},
 * with back-pressure (the flow runs only as far as the subscriber requests), and a publisher as a
 * {@code Flow}. For reading a flow one event at a time see {@code dev.corobridge.stream.EventStreams}
 * (a publisher: {@code EventStreams.from(FlowPublishers.toFlow(publisher))}).
 *
 * <pre>{@code
 * Flux<Quote> quotes = FlowPublishers.toFlux(quoteService.quotes());   // Kotlin Flow -> Flux
 * quotes.limitRate(8).subscribe(this::show);                           // requests 8 at a time
 * }</pre>
 *
 * Built on kotlinx-coroutines-reactor ({@code asFlux}, {@code asFlow}); Kotlin code calls those
 * directly. Each subscription collects the flow anew (flows are cold); cancelling the subscription
 * cancels the collection.
 *
 * <p><b>The Reactive Streams rules at the edges.</b> A request of zero or less fails the
 * subscription with an {@link IllegalArgumentException} (rule 3.9). Reactive Streams carries no
 * null: a null element of a flow (Java can hand over a Kotlin {@code Flow<T?>}) fails its Flux or
 * publisher with a {@link NullPointerException} after the elements before it, and a publisher that
 * signals null fails its flow the same way (its subscription cancelled), instead of ending it early.
 * A second {@code onSubscribe} to a flow's subscriber is cancelled (rule 2.5).
 *
 * <p><b>Thread-safety.</b> Stateless; safe from any thread.
 */
public final class FlowPublishers {

    private FlowPublishers() {
    }

    /**
     * {@code flow} as a {@link Flux}: collected for each subscriber, as far as it requests, on the
     * subscriber's thread (kotlinx's {@code Dispatchers.Unconfined}); disposing cancels it.
     */
    public static <T> Flux<T> toFlux(Flow<? extends T> flow) {
        return ReactiveFlows.toFlux(Objects.requireNonNull(flow, "flow"), null);
    }

    /** {@link #toFlux(Flow)} with the flow collected on {@code dispatcher} (e.g. a pump's). */
    public static <T> Flux<T> toFlux(Flow<? extends T> flow, CoroutineDispatcher dispatcher) {
        return ReactiveFlows.toFlux(Objects.requireNonNull(flow, "flow"), Objects.requireNonNull(dispatcher, "dispatcher"));
    }

    /** {@code flow} as a Reactive Streams {@link Publisher} (see {@link #toFlux(Flow)}). */
    public static <T> Publisher<T> toPublisher(Flow<? extends T> flow) {
        return ReactiveFlows.toPublisher(Objects.requireNonNull(flow, "flow"));
    }

    /**
     * {@code publisher} as a Kotlin {@code Flow}, requesting as the collector consumes: 64 elements
     * at first (kotlinx's buffer), then more as the collector takes them.
     */
    public static <T> Flow<T> toFlow(Publisher<? extends T> publisher) {
        @SuppressWarnings("unchecked") // a publisher of T subtypes is a publisher of T (it only produces)
        Publisher<T> p = (Publisher<T>) Objects.requireNonNull(publisher, "publisher");
        return ReactiveFlows.fromPublisher(p);
    }
}
