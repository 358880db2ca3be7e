package dev.corobridge.examples

import dev.corobridge.pump.MessagePump
import dev.corobridge.spring.SuspendHandlerDispatcherFilter
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration

/** The starter README's bean: Kotlin suspend handlers under `/api/kt/` start on the pump. */
@Configuration(proxyBeanMethods = false)
class StarterConfiguration {

    // snippet-begin: starter-suspend-dispatcher
    @Bean
    fun boardsOnPump(pump: MessagePump) =
        SuspendHandlerDispatcherFilter(pump.dispatcher) { it.request.path.value().startsWith("/api/kt/") }
    // snippet-end: starter-suspend-dispatcher
}
