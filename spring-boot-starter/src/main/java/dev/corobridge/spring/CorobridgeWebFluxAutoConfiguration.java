package dev.corobridge.spring;

import dev.corobridge.pump.MessagePump;
import kotlinx.coroutines.CoroutineDispatcher;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

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
     * With Reactor Netty: a {@code Task}'s answer is encoded and written on the request's event loop
     * ({@code corobridge.webflux.answer-on-event-loop}, default true).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "reactor.netty.Connection")
    @Conditional(BoundSettings.AnswerOnEventLoop.class)
    static class EventLoopAnswerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        EventLoopAnswerFilter corobridgeEventLoopAnswerFilter() {
            return new EventLoopAnswerFilter();
        }
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
         * continues on the request's Netty event loop (with Reactor Netty and
         * {@code corobridge.webflux.answer-on-event-loop}, the default) or on the CPU dispatcher,
         * so handler code never holds the UI-affinity thread.
         */
        @Bean
        @Conditional(BoundSettings.OffPump.class)
        @ConditionalOnBean(name = CorobridgeAutoConfiguration.CPU_DISPATCHER)
        @ConditionalOnSingleCandidate(MessagePump.class) // no pump, nothing to leave; several, none primary: which one?
        OffPumpHandlerFilter corobridgeOffPumpHandlerFilter(MessagePump pump,
                @Qualifier(CorobridgeAutoConfiguration.CPU_DISPATCHER) CoroutineDispatcher cpu,
                Environment environment) {
            OffPumpDispatcher toCpu = new OffPumpDispatcher(pump, cpu);
            boolean toLoop = BoundSettings.answerOnEventLoop(environment)
                    && ClassUtils.isPresent("reactor.netty.Connection", getClass().getClassLoader());
            return toLoop ? new OffPumpHandlerFilter(EventLoops.offPump(pump, toCpu)) : new OffPumpHandlerFilter(toCpu);
        }

        @Bean
        @Conditional(BoundSettings.Pump.class)
        @ConditionalOnSingleCandidate(MessagePump.class)
        SuspendHandlerDispatcherFilter corobridgePumpSuspendHandlerFilter(MessagePump pump) {
            return new SuspendHandlerDispatcherFilter(pump.getDispatcher());
        }

        /** Keeps the Netty types out of this class's code, for applications without Reactor Netty. */
        private static final class EventLoops {
            static java.util.function.Function<org.springframework.web.server.ServerWebExchange, CoroutineDispatcher> offPump(
                    MessagePump pump, CoroutineDispatcher elsewhere) {
                return new EventLoopOffPumpDispatchers(pump, elsewhere);
            }
        }

        @Bean
        @Conditional(BoundSettings.Cpu.class)
        SuspendHandlerDispatcherFilter corobridgeCpuSuspendHandlerFilter(
                @Qualifier(CorobridgeAutoConfiguration.CPU_DISPATCHER) CoroutineDispatcher cpu) {
            return new SuspendHandlerDispatcherFilter(cpu);
        }
    }
}
