package dev.corobridge.spring;

import java.time.Duration;

import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpConfig;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.RingPoolConfig;
import io.netty.channel.IoEventLoopGroup;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.Dispatchers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The corobridge contexts as beans: the UI-affinity {@link MessagePump} ({@code corobridgePump}),
 * the io_uring {@link RingPool} ({@code corobridgeRingPool}) and a CPU {@link CoroutineDispatcher}
 * ({@code corobridgeCpuDispatcher}), each replaceable by a bean of the user's, and the
 * {@link CorobridgeLifecycle}s that shut the pump and then the pool down after the web server.
 */
@AutoConfiguration
@EnableConfigurationProperties(CorobridgeProperties.class)
public class CorobridgeAutoConfiguration {

    /** Name of the CPU dispatcher bean; inject it with {@code @Qualifier(CPU_DISPATCHER)}. */
    public static final String CPU_DISPATCHER = "corobridgeCpuDispatcher";

    private static final Log LOG = LogFactory.getLog(CorobridgeAutoConfiguration.class);
    private static final Duration DEFAULT_PHASE_TIMEOUT = Duration.ofSeconds(30);

    /** The pump, running on its own platform (daemon) thread from the moment the bean exists. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public MessagePump corobridgePump(CorobridgeProperties properties) {
        CorobridgeProperties.Pump p = properties.pump();
        return MessagePump.start(PumpConfig.builder(p.name())
                .stallThreshold(p.stallThreshold())
                .shutdownGracePeriod(p.shutdownGrace())
                .build());
    }

    /**
     * The ring pool: its own event loops, or Reactor Netty's when
     * {@code corobridge.ring.share-reactor-netty-loops} is set and they are io_uring loops.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    public RingPool corobridgeRingPool(CorobridgeProperties properties, BeanFactory beans) {
        CorobridgeProperties.Ring r = properties.ring();
        RingPoolConfig config = RingPoolConfig.builder()
                .name(r.name())
                .rings(r.effectiveCount())
                .ringSize(r.size())
                .forceFallback(r.forceFallback() || Boolean.getBoolean(RingPoolConfig.FALLBACK_PROPERTY))
                .shutdownGracePeriod(r.shutdownGrace())
                .build();
        if (r.shareReactorNettyLoops()) {
            IoEventLoopGroup shared = null;
            String why;
            if (config.forceFallback()) {
                why = "the fallback transport is forced";
            } else if (!ClassUtils.isPresent("reactor.netty.http.HttpResources", getClass().getClassLoader())
                    || !ClassUtils.isPresent("org.springframework.http.client.ReactorResourceFactory", getClass().getClassLoader())) {
                why = "Reactor Netty (or spring-web) is not on the class path";
            } else {
                ReactorNettyLoops.Found found = ReactorNettyLoops.ioUringServerLoops(beans);
                shared = found.group();
                why = found.reason();
            }
            if (shared != null) {
                LOG.info("RingPool '" + r.name() + "' shares Reactor Netty's io_uring server event loops");
                return RingPool.adopt(shared, config);
            }
            LOG.info("RingPool '" + r.name() + "' starts its own event loops instead of sharing Reactor Netty's: " + why);
        }
        return RingPool.start(config);
    }

    /**
     * The CPU dispatcher: {@code Dispatchers.Default}, limited to {@code corobridge.cpu.parallelism}
     * coroutines at once when that is set (a view: it shares Default's threads).
     */
    @Bean(name = CPU_DISPATCHER, destroyMethod = "") // Dispatchers.Default must not be closed
    @ConditionalOnMissingBean(name = CPU_DISPATCHER)
    public CoroutineDispatcher corobridgeCpuDispatcher(CorobridgeProperties properties) {
        int n = properties.cpu().parallelism();
        return n == 0 ? Dispatchers.getDefault() : Dispatchers.getDefault().limitedParallelism(n, "corobridge-cpu");
    }

    /**
     * Shuts the pump down (two-phase) after the web server has drained and stopped. With several
     * pumps and none of them primary the application runs their lifecycles itself.
     */
    @Bean
    @ConditionalOnMissingBean(name = "corobridgePumpLifecycle")
    @ConditionalOnSingleCandidate(MessagePump.class)
    public CorobridgeLifecycle corobridgePumpLifecycle(MessagePump pump, CorobridgeProperties properties,
                                                       Environment environment) {
        return new CorobridgeLifecycle("MessagePump '" + pump.getName() + "'", CorobridgeLifecycle.PUMP_PHASE,
                properties.pump().shutdownGrace(), phaseTimeout(environment), pump::shutdown);
    }

    /** Shuts the ring pool down after the pump (with several pools, only a primary one). */
    @Bean
    @ConditionalOnMissingBean(name = "corobridgeRingPoolLifecycle")
    @ConditionalOnSingleCandidate(RingPool.class)
    public CorobridgeLifecycle corobridgeRingPoolLifecycle(RingPool pool, CorobridgeProperties properties,
                                                           Environment environment) {
        return new CorobridgeLifecycle("RingPool '" + pool.getName() + "'", CorobridgeLifecycle.RING_PHASE,
                properties.ring().shutdownGrace(), phaseTimeout(environment), pool::shutdown);
    }

    static Duration phaseTimeout(Environment environment) {
        return Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(DEFAULT_PHASE_TIMEOUT);
    }
}
