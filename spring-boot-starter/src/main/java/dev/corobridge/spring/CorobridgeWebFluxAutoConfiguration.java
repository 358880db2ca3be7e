package dev.corobridge.spring;

import dev.corobridge.pump.MessagePump;
import kotlinx.coroutines.CoroutineDispatcher;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code Task<T>} as a WebFlux return type, and the dispatcher Kotlin suspend handlers run on
 * (by default one that keeps their code off the pump thread); only with WebFlux on the class path.
 */
@AutoConfiguration(after = CorobridgeAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.web.reactive.DispatcherHandler")
public class CorobridgeWebFluxAutoConfiguration {

    /** Static: a post-processor must exist before the beans it processes. */
    @Bean
    @ConditionalOnMissingBean
    public static TaskReactiveAdapters corobridgeTaskReactiveAdapters() {
        return new TaskReactiveAdapters();
    }

    /**
     * {@code corobridge.webflux.suspend-dispatcher}: {@code off-pump} (the default: handler code
     * never continues on the pump thread), {@code pump} or {@code cpu} (handlers start there), or
     * {@code none} (Spring's own {@code Dispatchers.Unconfined}).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.web.server.CoWebFilter", "kotlinx.coroutines.reactor.MonoKt"})
    @ConditionalOnMissingBean({SuspendHandlerDispatcherFilter.class, OffPumpHandlerFilter.class})
    static class SuspendDispatcherConfiguration {

        /**
         * The default: a suspend handler starts on the request's thread, as with Spring's
         * Unconfined, but whatever resumes it on the pump (the end of {@code withContext(pump)})
         * continues on the CPU dispatcher, so handler code never holds the UI-affinity thread.
         */
        @Bean
        @ConditionalOnProperty(name = "corobridge.webflux.suspend-dispatcher", havingValue = "off-pump", matchIfMissing = true)
        @ConditionalOnBean(value = MessagePump.class, name = CorobridgeAutoConfiguration.CPU_DISPATCHER) // no pump, nothing to leave
        OffPumpHandlerFilter corobridgeOffPumpHandlerFilter(MessagePump pump,
                @Qualifier(CorobridgeAutoConfiguration.CPU_DISPATCHER) CoroutineDispatcher cpu) {
            return new OffPumpHandlerFilter(new OffPumpDispatcher(pump, cpu));
        }

        @Bean
        @ConditionalOnProperty(name = "corobridge.webflux.suspend-dispatcher", havingValue = "pump")
        SuspendHandlerDispatcherFilter corobridgePumpSuspendHandlerFilter(MessagePump pump) {
            return new SuspendHandlerDispatcherFilter(pump.getDispatcher());
        }

        @Bean
        @ConditionalOnProperty(name = "corobridge.webflux.suspend-dispatcher", havingValue = "cpu")
        SuspendHandlerDispatcherFilter corobridgeCpuSuspendHandlerFilter(
                @Qualifier(CorobridgeAutoConfiguration.CPU_DISPATCHER) CoroutineDispatcher cpu) {
            return new SuspendHandlerDispatcherFilter(cpu);
        }
    }
}
