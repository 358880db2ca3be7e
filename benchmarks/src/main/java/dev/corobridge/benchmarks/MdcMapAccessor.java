package dev.corobridge.benchmarks;

import io.micrometer.context.ThreadLocalAccessor;
import java.util.Map;
import org.slf4j.MDC;

/**
 * The whole SLF4J MDC as one {@link ThreadLocalAccessor}: what an application registers in
 * Micrometer's {@code ContextRegistry} so that Reactor's automatic context propagation carries
 * the MDC too (neither Reactor nor Micrometer registers one). Used only by the Reactor row of
 * {@link ContextHopPeersBenchmark}. Stateless; acts on the calling thread's MDC.
 */
final class MdcMapAccessor implements ThreadLocalAccessor<Map<String, String>> {

    static final String KEY = "corobridge.bench.mdc";

    @Override
    public Object key() {
        return KEY;
    }

    @Override
    public Map<String, String> getValue() {
        Map<String, String> m = MDC.getCopyOfContextMap();
        return m == null || m.isEmpty() ? null : m;
    }

    @Override
    public void setValue(Map<String, String> value) {
        MDC.setContextMap(value);
    }

    @Override
    public void setValue() {
        MDC.clear();
    }
}
