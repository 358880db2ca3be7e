package dev.corobridge.spring;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.corobridge.bridge.Task;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpMetrics;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether the pump responds: posts a no-op through {@code Task.start(pump, ...)} and waits at most the
 * threshold ({@code corobridge.health.pump-responsive-threshold}) for it to run. UP with the round
 * trip time; DOWN when the pump is shut down, or the round trip did not finish in time (a stalled
 * or overloaded pump); the queue depth and stall count are details either way.
 */
public final class PumpHealthIndicator extends AbstractHealthIndicator {

    private final MessagePump pump;
    private final Duration threshold;

    public PumpHealthIndicator(MessagePump pump, Duration threshold) {
        super("MessagePump health check failed");
        this.pump = Objects.requireNonNull(pump, "pump");
        this.threshold = Objects.requireNonNull(threshold, "threshold");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        PumpMetrics m = pump.getMetrics();
        builder.withDetail("pump", pump.getName())
                .withDetail("state", m.state())
                .withDetail("queueDepth", m.queueDepth())
                .withDetail("stalls", m.stalls())
                .withDetail("threshold", threshold.toString());
        if (pump.isShutdown()) {
            builder.down();
            return;
        }
        long start = System.nanoTime();
        Task<Long> roundTrip = Task.start(pump, System::nanoTime);
        try {
            roundTrip.toCompletableFuture().get(threshold.toNanos(), TimeUnit.NANOSECONDS);
            builder.up().withDetail("roundTripMicros", TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
        } catch (TimeoutException e) {
            roundTrip.cancel();
            builder.down().withDetail("error", "no round trip through the pump within " + threshold);
        }
    }
}
