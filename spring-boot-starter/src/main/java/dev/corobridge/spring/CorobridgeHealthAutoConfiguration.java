package dev.corobridge.spring;

import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.RingPool;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * Health contributors {@code corobridgePump} and {@code corobridgeRingPool}, with Boot 4's
 * {@code spring-boot-health} on the class path; off with {@code management.health.corobridge.enabled=false}.
 */
@AutoConfiguration(after = CorobridgeAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
public class CorobridgeHealthAutoConfiguration {

    // On the methods, not the class: a class's conditions are all loaded before any is evaluated,
    // and this one's condition class is missing without spring-boot-health.
    @Bean
    @ConditionalOnEnabledHealthIndicator("corobridge")
    @ConditionalOnMissingBean(name = "corobridgePumpHealthIndicator")
    @ConditionalOnSingleCandidate(MessagePump.class)
    public PumpHealthIndicator corobridgePumpHealthIndicator(MessagePump pump, CorobridgeProperties properties) {
        return new PumpHealthIndicator(pump, properties.health().pumpResponsiveThreshold());
    }

    @Bean
    @ConditionalOnEnabledHealthIndicator("corobridge")
    @ConditionalOnMissingBean(name = "corobridgeRingPoolHealthIndicator")
    @ConditionalOnSingleCandidate(RingPool.class)
    public RingPoolHealthIndicator corobridgeRingPoolHealthIndicator(RingPool pool) {
        return new RingPoolHealthIndicator(pool);
    }
}
