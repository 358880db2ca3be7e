package dev.corobridge.spring;

import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The {@link MessagePump}'s {@link PumpMetrics} as meters {@code corobridge.pump.*}, tagged
 * {@code pump=<name>}: counters for the cumulative counts, gauges for the levels. Each read takes a
 * fresh snapshot (cheap, lock-free).
 */
public final class PumpMeterBinder implements MeterBinder {

    private final MessagePump pump;

    public PumpMeterBinder(MessagePump pump) {
        this.pump = Objects.requireNonNull(pump, "pump");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        String name = pump.name();
        counter(registry, "dispatches", "tasks run on the pump", PumpMetrics::dispatches);
        counter(registry, "completions.delivered", "external completions delivered", PumpMetrics::completionsDelivered);
        counter(registry, "timers.fired", "timers fired", PumpMetrics::timersFired);
        counter(registry, "wakeups", "unparks of the sleeping pump thread", PumpMetrics::wakeups);
        counter(registry, "parks", "times the pump thread went to sleep", PumpMetrics::parks);
        counter(registry, "spin.hits", "idle periods ended by work found while spinning", PumpMetrics::spinHits);
        counter(registry, "stalls", "tasks reported by the stall watchdog", PumpMetrics::stalls);
        counter(registry, "task.failures", "posted tasks that threw", PumpMetrics::taskFailures);
        gauge(registry, "queue.depth", "tasks and completions waiting", PumpMetrics::queueDepth);
        gauge(registry, "pending.timers", "timers scheduled, not fired or cancelled", PumpMetrics::pendingTimers);
        gauge(registry, "live.coroutines", "live coroutines in the pump's scope", PumpMetrics::liveChildren);
        gauge(registry, "wakeups.per.dispatch", "wake-ups per dispatch (below 1: posts share wake-ups)",
                PumpMetrics::wakeupsPerDispatch);
        gauge(registry, "running", "1 while the pump runs, 0 once shutdown has started",
                m -> "RUNNING".equals(m.state()) ? 1 : 0);
        TimeGauge.builder("corobridge.pump.queue.latency.max", pump, TimeUnit.NANOSECONDS,
                        p -> p.metrics().queueLatencyMaxNanos())
                .description("longest sampled enqueue-to-run latency").tag("pump", name).register(registry);
        TimeGauge.builder("corobridge.pump.queue.latency.p99", pump, TimeUnit.NANOSECONDS,
                        p -> p.metrics().queueLatencyP99Nanos())
                .description("99th percentile of sampled enqueue-to-run latency").tag("pump", name).register(registry);
    }

    private void counter(MeterRegistry registry, String suffix, String description, ToDoubleFunction<PumpMetrics> f) {
        FunctionCounter.builder("corobridge.pump." + suffix, pump, p -> f.applyAsDouble(p.metrics()))
                .description(description).tag("pump", pump.name()).register(registry);
    }

    private void gauge(MeterRegistry registry, String suffix, String description, ToDoubleFunction<PumpMetrics> f) {
        Gauge.builder("corobridge.pump." + suffix, pump, p -> f.applyAsDouble(p.metrics()))
                .description(description).tag("pump", pump.name()).register(registry);
    }
}
