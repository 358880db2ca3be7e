package dev.corobridge.stream;

/**
 * The body of a Java-produced flow ({@link Flows#create}): called once per collection, with a fresh
 * {@link FlowEmitter}. It should start the production and return (it runs in the collecting
 * coroutine, which may be the pump); a producer that throws fails the flow.
 *
 * @param <T> the value type
 */
@FunctionalInterface
public interface FlowProducer<T> {

    /** Starts producing into {@code emitter}. */
    void produce(FlowEmitter<T> emitter) throws Exception;
}
