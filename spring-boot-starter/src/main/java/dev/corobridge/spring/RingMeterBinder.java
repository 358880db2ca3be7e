package dev.corobridge.spring;

import java.util.List;
import java.util.Objects;

import dev.corobridge.ring.RingMetrics;
import dev.corobridge.ring.RingPool;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The {@link RingPool}'s {@code RingMetrics} as meters {@code corobridge.ring.*}, tagged
 * {@code pool=<name>}: operations by {@code kind} (the kinds the pool submits today), errors (all
 * errnos summed), completions, in-flight operations, open files, rings, and
 * {@code corobridge.ring.transport} (1, tagged with the transport, {@code IO_URING} or
 * {@code FALLBACK}).
 */
public final class RingMeterBinder implements MeterBinder {

    /**
     * The operation kinds {@code RingMetrics.operations()} reports: the file operations a pool
     * submits (socket I/O runs on Netty's channels and is not counted there).
     */
    public static final List<String> KINDS = List.of("open", "read", "write", "append", "fsync", "fdatasync", "size",
            "close");

    private final SnapshotMeters<RingPool, RingMetrics> meters;

    public RingMeterBinder(RingPool pool) {
        Objects.requireNonNull(pool, "pool");
        SnapshotMeters<RingPool, RingMetrics> m = new SnapshotMeters<>("corobridge.ring", pool, RingPool::getMetrics,
                Tag.of("pool", pool.getName()));
        for (String kind : KINDS) {
            m.counter("operations", "operations submitted, by kind", s -> s.operations().getOrDefault(kind, 0L),
                    Tag.of("kind", kind));
        }
        m.counter("errors", "failed operations", s -> s.errors().values().stream().mapToLong(Long::longValue).sum());
        m.counter("completions", "operations completed (any outcome)", RingMetrics::completions);
        m.gauge("in.flight", "operations submitted and not completed", RingMetrics::inFlight);
        m.gauge("open.files", "files opened through the pool and not closed", RingMetrics::openFiles);
        m.gauge("rings", "rings (event loops) of the pool", RingMetrics::rings);
        m.marker("transport", "the active transport (tag), always 1", Tag.of("transport", pool.getMetrics().transport().name()));
        this.meters = m;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        meters.bindTo(registry);
    }
}
