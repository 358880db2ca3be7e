package dev.corobridge.spring;

import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.RingPool;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;

/**
 * {@code MeterBinder}s for the pump and the ring pool, with Micrometer on the class path. Boot's
 * metrics auto-configuration binds every {@code MeterBinder} bean to its registries.
 */
@AutoConfiguration(after = CorobridgeAutoConfiguration.class)
@ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
public class CorobridgeMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(MessagePump.class)
    public PumpMeterBinder corobridgePumpMeterBinder(MessagePump pump) {
        return new PumpMeterBinder(pump);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(RingPool.class)
    public RingMeterBinder corobridgeRingMeterBinder(RingPool pool) {
        return new RingMeterBinder(pool);
    }
}
