package dev.corobridge.spring;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** {@code Task<T>} as a WebFlux return type; only with WebFlux on the class path. */
@AutoConfiguration
@ConditionalOnClass(name = "org.springframework.web.reactive.DispatcherHandler")
public class CorobridgeWebFluxAutoConfiguration {

    /** Static: a post-processor must exist before the beans it processes. */
    @Bean
    @ConditionalOnMissingBean
    public static TaskReactiveAdapters corobridgeTaskReactiveAdapters() {
        return new TaskReactiveAdapters();
    }
}
