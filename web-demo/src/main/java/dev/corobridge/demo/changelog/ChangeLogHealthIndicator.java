package dev.corobridge.demo.changelog;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The change log's health: DOWN once the log failed (the service refuses changes from then on), UP
 * otherwise, with the details the log gives ({@link ChangeLog#health()}). A log that could not be
 * opened never gets here: the service does not start. Thread-safe (the log's health is).
 */
public final class ChangeLogHealthIndicator extends AbstractHealthIndicator {

    private final ChangeLog log;

    public ChangeLogHealthIndicator(ChangeLog log) {
        super("Change log health check failed");
        this.log = log;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        ChangeLogHealth health = log.health();
        builder.withDetails(health.details());
        if (health.up()) {
            builder.up();
        } else {
            builder.down();
        }
    }
}
