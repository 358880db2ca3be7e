package dev.corobridge.spring;

import dev.corobridge.pump.MessagePump;
import kotlinx.coroutines.CoroutineDispatcher;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@code Task<T>} as a WebFlux return type, and the opt-in dispatcher for Kotlin suspend handlers;
 * only with WebFlux on the class path.
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

    /** {@code corobridge.webflux.suspend-dispatcher=pump|cpu}: suspend handlers start there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.web.server.CoWebFilter", "kotlinx.coroutines.reactor.MonoKt"})
    @ConditionalOnMissingBean(SuspendHandlerDispatcherFilter.class)
    static class SuspendDispatcherConfiguration {

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
