package dev.corobridge.benchmarks;

import io.micrometer.context.ContextRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import org.slf4j.MDC;

/**
 * What a request carries in the context propagation cost study ({@link ContextCase#ON}): two MDC
 * entries and a tracing context, put on the benchmark thread by {@link #enter()} and taken off by
 * {@link #close()}, so that every Task or coroutine task the benchmark starts captures them.
 *
 * <p>The tracing context is a Micrometer {@link Observation} in scope: a {@link #REGISTRY} with one
 * {@link SpanScopeHandler} (a registry without handlers would make every observation a no-op),
 * started and opened on the benchmark thread. Micrometer's {@code ObservationThreadLocalAccessor}
 * (registered in the global {@link ContextRegistry} by micrometer-observation's
 * {@code META-INF/services}; checked here, so the study fails instead of measuring nothing) makes
 * the current observation one of the thread-locals corobridge captures and restores at each hop.
 *
 * <p><b>Thread-safety.</b> {@link #enter()} and {@link #close()} run on the same thread, the one
 * whose context they set; the values read by other threads ({@link #spanId()}) are final.
 */
final class RequestContext implements AutoCloseable {

    static final String REQUEST_KEY = "requestId";
    static final String REQUEST_ID = "req-4711";
    static final String USER_KEY = "userId";
    static final String USER_ID = "user-42";

    /** The observations' registry: one handler that keeps the span in a thread-local. */
    static final ObservationRegistry REGISTRY = registry();

    private final Observation observation;
    private final Observation.Scope scope;
    private final long spanId;
    private boolean closed;

    private RequestContext(Observation observation, Observation.Scope scope, long spanId) {
        this.observation = observation;
        this.scope = scope;
        this.spanId = spanId;
    }

    /** Sets the two MDC entries and opens a new observation's scope on the current thread. */
    static RequestContext enter() {
        if (MDC.get(REQUEST_KEY) != null || SpanScopeHandler.currentSpanId() != 0) {
            throw new IllegalStateException("a request context is already in place on " + Thread.currentThread());
        }
        MDC.put(REQUEST_KEY, REQUEST_ID);
        MDC.put(USER_KEY, USER_ID);
        if (!REQUEST_ID.equals(MDC.get(REQUEST_KEY))) {
            throw new IllegalStateException("SLF4J's MDC keeps nothing (no SLF4J provider on the class path?): "
                    + MDC.getMDCAdapter());
        }
        Observation observation = Observation.start("corobridge.bench.request", REGISTRY);
        Observation.Scope scope = observation.openScope();
        long span = SpanScopeHandler.currentSpanId();
        if (span == 0 || REGISTRY.getCurrentObservation() != observation) {
            throw new IllegalStateException("the observation is not in scope after openScope()");
        }
        return new RequestContext(observation, scope, span);
    }

    /** The span id of this request's observation: what a restored hop must see. */
    long spanId() {
        return spanId;
    }

    /** Closes the observation's scope, stops it and removes the MDC entries (once). */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            scope.close();
            observation.stop();
        } finally {
            MDC.remove(REQUEST_KEY);
            MDC.remove(USER_KEY);
        }
    }

    private static ObservationRegistry registry() {
        boolean registered = ContextRegistry.getInstance().getThreadLocalAccessors().stream()
                .anyMatch(a -> ObservationThreadLocalAccessor.KEY.equals(a.key()));
        if (!registered) {
            throw new IllegalStateException("ObservationThreadLocalAccessor is not registered in the ContextRegistry: "
                    + "micrometer-observation's META-INF/services entry is missing from the benchmarks jar");
        }
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(new SpanScopeHandler());
        ObservationThreadLocalAccessor.getInstance().setObservationRegistry(registry); // as Spring Boot does
        return registry;
    }
}
