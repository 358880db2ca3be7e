package dev.corobridge.spring;

import java.util.Objects;

import dev.corobridge.ring.RingMetrics;
import dev.corobridge.ring.RingPool;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The ring pool's active transport: UP on io_uring and on the fallback alike (the fallback works,
 * only slower), with the transport and, on the fallback, the reason as details; DOWN once the pool
 * is shut down.
 */
public final class RingPoolHealthIndicator extends AbstractHealthIndicator {

    private final RingPool pool;

    public RingPoolHealthIndicator(RingPool pool) {
        super("RingPool health check failed");
        this.pool = Objects.requireNonNull(pool, "pool");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        RingMetrics m = pool.getMetrics();
        builder.withDetail("pool", pool.getName())
                .withDetail("transport", m.transport().name())
                .withDetail("rings", m.rings())
                .withDetail("inFlight", m.inFlight());
        if (!m.fallbackReason().isEmpty()) {
            builder.withDetail("fallbackReason", m.fallbackReason());
        }
        if (pool.isShutdown()) {
            builder.down();
        } else {
            builder.up();
        }
    }
}
