package dev.corobridge.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;

/**
 * The meters of one corobridge object (the pump, a ring pool) whose counters come as a snapshot
 * ({@code PumpMetrics}, {@code RingMetrics}): a binder declares them once, in its constructor, and
 * {@link #bindTo} registers all of them with a registry. Every meter is named
 * {@code <prefix>.<suffix>}, tagged with the object's tag (plus its own extra tags), and reads one
 * field of a fresh snapshot each time it is read.
 *
 * <p><b>Lifetime.</b> Micrometer holds a function meter's state object weakly; the state object here
 * is the pump or pool itself (owned by the application), and the registered functions capture only
 * the snapshot function and the field reader, never the source or this object, so registering
 * meters does not keep a stopped pump or pool alive.
 *
 * <p><b>Thread-safety.</b> Declared on one thread (the binder's constructor), then read-only:
 * {@link #bindTo} may run on any thread once the binder is published, for any number of registries
 * (Micrometer's builders register anew each time). The meters read snapshots, which are safe from
 * any thread.
 *
 * @param <S> the source object
 * @param <M> its snapshot type
 */
final class SnapshotMeters<S, M> {

    private final String prefix;
    private final S source;
    private final Function<S, M> snapshot;
    private final Tags tags;
    private final List<Consumer<MeterRegistry>> registrations = new ArrayList<>();

    /**
     * @param prefix   meter names start with it and a dot ({@code corobridge.pump})
     * @param source   the object whose snapshots the meters read; Micrometer keeps it weakly
     * @param snapshot takes a snapshot of {@code source}; must not capture {@code source}
     * @param tag      the tag that tells sources apart ({@code pump=<name>})
     */
    SnapshotMeters(String prefix, S source, Function<S, M> snapshot, Tag tag) {
        this.prefix = prefix + ".";
        this.source = source;
        this.snapshot = snapshot;
        this.tags = Tags.of(tag);
    }

    /** A counter of a cumulative count; {@code extra} tags tell apart meters of the same name. */
    void counter(String suffix, String description, ToDoubleFunction<M> count, Tag... extra) {
        var meter = FunctionCounter.builder(prefix + suffix, source, read(count))
                .description(description).tags(tags.and(extra));
        registrations.add(meter::register);
    }

    /** A gauge of a level. */
    void gauge(String suffix, String description, ToDoubleFunction<M> level) {
        var meter = Gauge.builder(prefix + suffix, source, read(level)).description(description).tags(tags);
        registrations.add(meter::register);
    }

    /** A time gauge of a duration in nanoseconds. */
    void nanosGauge(String suffix, String description, ToDoubleFunction<M> nanos) {
        var meter = TimeGauge.builder(prefix + suffix, source, TimeUnit.NANOSECONDS, read(nanos))
                .description(description).tags(tags);
        registrations.add(meter::register);
    }

    /** A gauge that is always 1 and says what it says in {@code extra} tags ({@code transport=IO_URING}). */
    void marker(String suffix, String description, Tag... extra) {
        var meter = Gauge.builder(prefix + suffix, () -> 1).description(description).tags(tags.and(extra));
        registrations.add(meter::register);
    }

    /** Registers every meter declared so far with {@code registry}. */
    void bindTo(MeterRegistry registry) {
        for (Consumer<MeterRegistry> r : registrations) {
            r.accept(registry);
        }
    }

    /** A field of a fresh snapshot; captures the two functions only (see the class comment). */
    private ToDoubleFunction<S> read(ToDoubleFunction<M> field) {
        Function<S, M> take = snapshot;
        return s -> field.applyAsDouble(take.apply(s));
    }
}
