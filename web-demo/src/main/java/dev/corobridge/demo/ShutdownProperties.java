package dev.corobridge.demo;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * How the service drains its connections at shutdown, under {@code demo.shutdown.*} (see
 * {@code web-demo/API.md}, "Shutdown"); checked when bound, so a bad value stops the service at
 * start with the property named.
 *
 * @param quietPeriod  the drain ends once no connection is busy and nothing happened on any
 *                     connection (accepted, request read, response written, closed) for this long
 * @param drainTimeout the drain ends after this long at most (and at most 90% of
 *                     {@code spring.lifecycle.timeout-per-shutdown-phase}), busy connections or not
 * @param retryAfter   the {@code Retry-After} of a 503 refusal during shutdown (whole seconds, at
 *                     least 1); longer than the quiet period, so that a client that waits as told
 *                     does not keep the drain open
 * @param withParent   stop (as on SIGTERM) when the process that started the service exits: for a
 *                     launcher that waits for the service and does not pass its own end on, such as
 *                     Maven in the {@code -Pdemo} run, which sets it (see {@link ParentProcessWatch})
 */
@ConfigurationProperties("demo.shutdown")
public record ShutdownProperties(@DefaultValue("500ms") Duration quietPeriod,
                                 @DefaultValue("10s") Duration drainTimeout,
                                 @DefaultValue("5s") Duration retryAfter,
                                 @DefaultValue("false") boolean withParent) {

    public ShutdownProperties {
        if (quietPeriod.isNegative() || quietPeriod.isZero()) {
            throw new IllegalArgumentException("demo.shutdown.quiet-period must be positive, was " + quietPeriod);
        }
        if (drainTimeout.isNegative()) {
            throw new IllegalArgumentException("demo.shutdown.drain-timeout must not be negative, was " + drainTimeout);
        }
        if (retryAfter.toSeconds() < 1 || retryAfter.toSeconds() > 3600 || retryAfter.toNanosPart() != 0) {
            throw new IllegalArgumentException("demo.shutdown.retry-after must be whole seconds within 1s..1h, was " + retryAfter);
        }
        if (retryAfter.compareTo(quietPeriod) <= 0) {
            throw new IllegalArgumentException("demo.shutdown.retry-after (" + retryAfter
                    + ") must be longer than demo.shutdown.quiet-period (" + quietPeriod + ")");
        }
    }

    /** The drain timeout actually used: {@link #drainTimeout()}, at most 90% of the phase timeout. */
    public Duration effectiveDrainTimeout(Duration phaseTimeout) {
        Duration cap = phaseTimeout.minus(phaseTimeout.dividedBy(10));
        return drainTimeout.compareTo(cap) > 0 ? cap : drainTimeout;
    }
}
