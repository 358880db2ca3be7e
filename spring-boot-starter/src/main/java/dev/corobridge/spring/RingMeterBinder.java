package dev.corobridge.spring;

import java.util.List;
import java.util.Objects;

import dev.corobridge.ring.RingPool;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The {@link RingPool}'s {@code RingMetrics} as meters {@code corobridge.ring.*}, tagged
 * {@code pool=<name>}: operations by {@code kind} (the kinds the pool submits today), errors (all
 * errnos summed), completions, in-flight operations, open files, rings, and
 * {@code corobridge.ring.transport} (1, tagged with the transport, {@code IO_URING} or
 * {@code FALLBACK}).
 */
public final class RingMeterBinder implements MeterBinder {

    /** The operation kinds {@code RingMetrics.operations()} reports. */
    public static final List<String> KINDS = List.of("open", "read", "write", "fsync", "fdatasync", "close", "connect");

    private final RingPool pool;

    public RingMeterBinder(RingPool pool) {
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        String name = pool.name();
        for (String kind : KINDS) {
            FunctionCounter.builder("corobridge.ring.operations", pool,
                            p -> p.metrics().operations().getOrDefault(kind, 0L))
                    .description("operations submitted, by kind").tag("pool", name).tag("kind", kind)
                    .register(registry);
        }
        FunctionCounter.builder("corobridge.ring.errors", pool,
                        p -> p.metrics().errors().values().stream().mapToLong(Long::longValue).sum())
                .description("failed operations").tag("pool", name).register(registry);
        FunctionCounter.builder("corobridge.ring.completions", pool, p -> p.metrics().completions())
                .description("operations completed (any outcome)").tag("pool", name).register(registry);
        Gauge.builder("corobridge.ring.in.flight", pool, p -> p.metrics().inFlight())
                .description("operations submitted and not completed").tag("pool", name).register(registry);
        Gauge.builder("corobridge.ring.open.files", pool, p -> p.metrics().openFiles())
                .description("files opened through the pool and not closed").tag("pool", name).register(registry);
        Gauge.builder("corobridge.ring.rings", pool, p -> p.metrics().rings())
                .description("rings (event loops) of the pool").tag("pool", name).register(registry);
        Gauge.builder("corobridge.ring.transport", () -> 1)
                .description("the active transport (tag), always 1")
                .tag("pool", name).tag("transport", pool.transport().name()).register(registry);
    }
}
