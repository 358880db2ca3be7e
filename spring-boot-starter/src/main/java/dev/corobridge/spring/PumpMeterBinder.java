package dev.corobridge.spring;

import java.util.Objects;

import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The {@link MessagePump}'s {@link PumpMetrics} as meters {@code corobridge.pump.*}, tagged
 * {@code pump=<name>}: counters for the cumulative counts, gauges for the levels. Each read takes a
 * fresh snapshot (cheap, lock-free).
 */
public final class PumpMeterBinder implements MeterBinder {

    private final SnapshotMeters<MessagePump, PumpMetrics> meters;

    public PumpMeterBinder(MessagePump pump) {
        Objects.requireNonNull(pump, "pump");
        SnapshotMeters<MessagePump, PumpMetrics> m = new SnapshotMeters<>("corobridge.pump", pump, MessagePump::getMetrics,
                Tag.of("pump", pump.getName()));
        m.counter("dispatches", "tasks run on the pump", PumpMetrics::dispatches);
        m.counter("completions.delivered", "external completions delivered", PumpMetrics::completionsDelivered);
        m.counter("timers.fired", "timers fired", PumpMetrics::timersFired);
        m.counter("wakeups", "unparks of the sleeping pump thread", PumpMetrics::wakeups);
        m.counter("parks", "times the pump thread went to sleep", PumpMetrics::parks);
        m.counter("spin.hits", "idle periods ended by work found while spinning", PumpMetrics::spinHits);
        m.counter("stalls", "tasks reported by the stall watchdog", PumpMetrics::stalls);
        m.counter("task.failures", "tasks, timers and completions that threw", PumpMetrics::taskFailures);
        m.counter("interrupts", "interrupts of the idle pump thread, cleared", PumpMetrics::interrupts);
        m.gauge("queue.depth", "tasks and completions waiting", PumpMetrics::queueDepth);
        m.gauge("pending.timers", "timers scheduled, not fired or cancelled", PumpMetrics::pendingTimers);
        m.gauge("live.coroutines", "live coroutines in the pump's scope", PumpMetrics::liveChildren);
        m.gauge("wakeups.per.dispatch", "wake-ups per dispatch (below 1: posts share wake-ups)",
                PumpMetrics::wakeupsPerDispatch);
        m.gauge("running", "1 while the pump runs, 0 once shutdown has started",
                s -> "RUNNING".equals(s.state()) ? 1 : 0);
        m.nanosGauge("queue.latency.max", "longest sampled enqueue-to-run latency", PumpMetrics::queueLatencyMaxNanos);
        m.nanosGauge("queue.latency.p99", "99th percentile of sampled enqueue-to-run latency",
                PumpMetrics::queueLatencyP99Nanos);
        this.meters = m;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        meters.bindTo(registry);
    }
}
