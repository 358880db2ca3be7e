package dev.corobridge.stream;

import java.util.Objects;
import kotlinx.coroutines.flow.Flow;

/**
 * Kotlin {@code Flow}s produced by Java code through a {@link FlowEmitter}. For reading a flow one
 * event at a time see {@link EventStreams}; for a flow as a Reactor {@code Flux} or a Reactive
 * Streams {@code Publisher} (and back), the corobridge-reactor module
 * ({@code dev.corobridge.reactor.FlowPublishers}).
 *
 * <pre>{@code
 * Flow<Tick> ticks = Flows.create(0, emitter -> ...);             // Java -> Kotlin Flow
 * }</pre>
 *
 * Built on kotlinx's {@code callbackFlow}. Each collection runs the producer anew (flows are
 * cold); cancelling the collection closes the emitter.
 */
public final class Flows {

    private Flows() {
    }

    /** {@link #create(int, FlowProducer)} with no buffer: each {@code emitAsync} waits for the collector. */
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
