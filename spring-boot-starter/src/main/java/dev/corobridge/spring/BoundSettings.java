package dev.corobridge.spring;

import dev.corobridge.spring.CorobridgeProperties.SuspendDispatcher;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * The starter's settings that choose beans ({@code corobridge.webflux.*},
 * {@code corobridge.observation.enabled}) as {@link CorobridgeProperties} binds them, and the
 * conditions of those beans. A setting is read through Spring Boot's {@link Binder}, so
 * a condition sees what the properties see in every spelling relaxed binding and conversion take:
 * {@code OFF_PUMP}, {@code offPump} and {@code off-pump} are one value, as are {@code on},
 * {@code yes} and {@code true}. ({@code @ConditionalOnProperty} compares the raw text: an upper-case
 * {@code OFF_PUMP} bound to the default but matched no bean, so handler code went on on the pump.)
 * A value that does not bind matches nothing here; binding {@link CorobridgeProperties} then fails
 * the start with the property's name.
 *
 * <p>Stateless; the conditions are evaluated by Spring while it reads the configuration.
 */
final class BoundSettings {

    static final String SUSPEND_DISPATCHER = "corobridge.webflux.suspend-dispatcher";
    static final String ANSWER_ON_EVENT_LOOP = "corobridge.webflux.answer-on-event-loop";
    static final String OBSERVATION_ENABLED = "corobridge.observation.enabled";

    private BoundSettings() {
    }

    /** {@value #SUSPEND_DISPATCHER} as bound (default {@code off-pump}). */
    static SuspendDispatcher suspendDispatcher(Environment environment) {
        return Binder.get(environment).bind(SUSPEND_DISPATCHER, SuspendDispatcher.class).orElse(SuspendDispatcher.OFF_PUMP);
    }

    /** {@value #ANSWER_ON_EVENT_LOOP} as bound (default {@code true}). */
    static boolean answerOnEventLoop(Environment environment) {
        return Binder.get(environment).bind(ANSWER_ON_EVENT_LOOP, Boolean.class).orElse(true);
    }

    /** Matches when a boolean setting, {@link #name()}, binds to true (default {@code true}). */
    abstract static class FlagOn extends SpringBootCondition {
        abstract String name();

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            try {
                boolean on = Binder.get(context.getEnvironment()).bind(name(), Boolean.class).orElse(true);
                return new ConditionOutcome(on, name() + " is " + on);
            } catch (BindException e) {
                return ConditionOutcome.noMatch(name() + " does not bind: " + e.getMessage());
            }
        }
    }

    /** Matches when answers are written on the request's event loop. */
    static final class AnswerOnEventLoop extends FlagOn {
        @Override
        String name() {
            return ANSWER_ON_EVENT_LOOP;
        }
    }

    /** Matches when tasks are observed. */
    static final class ObservationEnabled extends FlagOn {
        @Override
        String name() {
            return OBSERVATION_ENABLED;
        }
    }

    /** Matches when {@value #SUSPEND_DISPATCHER} binds to {@link #choice()}. */
    abstract static class SuspendDispatcherIs extends SpringBootCondition {
        abstract SuspendDispatcher choice();

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            try {
                SuspendDispatcher bound = suspendDispatcher(context.getEnvironment());
                return new ConditionOutcome(bound == choice(), SUSPEND_DISPATCHER + " is " + bound);
            } catch (BindException e) {
                return ConditionOutcome.noMatch(SUSPEND_DISPATCHER + " does not bind: " + e.getMessage());
            }
        }
    }

    /** {@code off-pump}, the default. */
    static final class OffPump extends SuspendDispatcherIs {
        @Override
        SuspendDispatcher choice() {
            return SuspendDispatcher.OFF_PUMP;
        }
    }

    /** {@code pump}. */
    static final class Pump extends SuspendDispatcherIs {
        @Override
        SuspendDispatcher choice() {
            return SuspendDispatcher.PUMP;
        }
    }

    /** {@code cpu}. */
    static final class Cpu extends SuspendDispatcherIs {
        @Override
        SuspendDispatcher choice() {
            return SuspendDispatcher.CPU;
        }
    }
}
