package dev.corobridge.spring;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;

/**
 * Registers the meters of one corobridge object (the pump, a ring pool) whose counters come as a
 * snapshot ({@code PumpMetrics}, {@code RingMetrics}): every meter is named {@code <prefix>.<suffix>},
 * tagged with the object's tag, and reads one field of a fresh snapshot each time it is read.
 *
 * <p><b>Lifetime.</b> Micrometer holds a function meter's state object weakly; the state object here
 * is the pump or pool itself (owned by the application), never this helper, and the functions hold
 * no reference to it, so registering meters does not keep a stopped pump or pool alive.
 *
 * <p><b>Thread-safety.</b> Use it from the thread that binds (it is a short-lived builder); the meters
 * it registers read snapshots, which are safe from any thread.
 *
 * @param <S> the source object
 * @param <M> its snapshot type
 */
final class SnapshotMeters<S, M> {

    private final MeterRegistry registry;
    private final String prefix;
    private final S source;
    private final Function<S, M> snapshot;
    private final Tags tags;

    /**
     * @param prefix   meter names start with it and a dot ({@code corobridge.pump})
     * @param source   the object whose snapshots the meters read; Micrometer keeps it weakly
     * @param snapshot takes a snapshot of {@code source}; must not capture {@code source}
     * @param tag      the tag that tells sources apart ({@code pump=<name>})
     */
    SnapshotMeters(MeterRegistry registry, String prefix, S source, Function<S, M> snapshot, Tag tag) {
        this.registry = registry;
        this.prefix = prefix + ".";
        this.source = source;
        this.snapshot = snapshot;
        this.tags = Tags.of(tag);
    }

    /** A counter of a cumulative count; {@code extra} tags tell apart meters of the same name. */
    void counter(String suffix, String description, ToDoubleFunction<M> count, Tag... extra) {
        Function<S, M> take = snapshot;
        FunctionCounter.builder(prefix + suffix, source, s -> count.applyAsDouble(take.apply(s)))
                .description(description).tags(tags.and(extra)).register(registry);
    }

    /** A gauge of a level. */
    void gauge(String suffix, String description, ToDoubleFunction<M> level) {
        Function<S, M> take = snapshot;
        Gauge.builder(prefix + suffix, source, s -> level.applyAsDouble(take.apply(s)))
                .description(description).tags(tags).register(registry);
    }

    /** A time gauge of a duration in nanoseconds. */
    void nanosGauge(String suffix, String description, ToDoubleFunction<M> nanos) {
        Function<S, M> take = snapshot;
        TimeGauge.builder(prefix + suffix, source, TimeUnit.NANOSECONDS, s -> nanos.applyAsDouble(take.apply(s)))
                .description(description).tags(tags).register(registry);
    }

    /** A gauge that is always 1 and says what it says in {@code extra} tags ({@code transport=IO_URING}). */
    void marker(String suffix, String description, Tag... extra) {
        Gauge.builder(prefix + suffix, () -> 1)
                .description(description).tags(tags.and(extra)).register(registry);
    }
}
