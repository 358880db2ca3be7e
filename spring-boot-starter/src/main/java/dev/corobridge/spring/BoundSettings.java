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

    /** {@value #ANSWER_ON_EVENT_LOOP} as bound (default {@code true}). */
    static boolean answerOnEventLoop(Environment environment) {
        return Binder.get(environment).bind(ANSWER_ON_EVENT_LOOP, Boolean.class).orElse(true);
    }

    /**
     * Matches when the setting {@code name}, bound as a {@code type}, is {@code expected}
     * ({@code fallback} when it is not set).
     */
    abstract static class BoundValueIs<V> extends SpringBootCondition {
        private final String name;
        private final Class<V> type;
        private final V fallback;
        private final V expected;

        BoundValueIs(String name, Class<V> type, V fallback, V expected) {
            this.name = name;
            this.type = type;
            this.fallback = fallback;
            this.expected = expected;
        }

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            try {
                V bound = Binder.get(context.getEnvironment()).bind(name, type).orElse(fallback);
                return new ConditionOutcome(expected.equals(bound), name + " is " + bound);
            } catch (BindException e) {
                return ConditionOutcome.noMatch(name + " does not bind: " + e.getMessage());
            }
        }
    }

    /** Matches when answers are written on the request's event loop. */
    static final class AnswerOnEventLoop extends BoundValueIs<Boolean> {
        AnswerOnEventLoop() {
            super(ANSWER_ON_EVENT_LOOP, Boolean.class, true, true);
        }
    }

    /** Matches when tasks are observed. */
    static final class ObservationEnabled extends BoundValueIs<Boolean> {
        ObservationEnabled() {
            super(OBSERVATION_ENABLED, Boolean.class, true, true);
        }
    }

    /** {@value #SUSPEND_DISPATCHER} is {@code off-pump}, the default. */
    static final class OffPump extends BoundValueIs<SuspendDispatcher> {
        OffPump() {
            super(SUSPEND_DISPATCHER, SuspendDispatcher.class, SuspendDispatcher.OFF_PUMP, SuspendDispatcher.OFF_PUMP);
        }
    }

    /** {@value #SUSPEND_DISPATCHER} is {@code pump}. */
    static final class Pump extends BoundValueIs<SuspendDispatcher> {
        Pump() {
            super(SUSPEND_DISPATCHER, SuspendDispatcher.class, SuspendDispatcher.OFF_PUMP, SuspendDispatcher.PUMP);
        }
    }

    /** {@value #SUSPEND_DISPATCHER} is {@code cpu}. */
    static final class Cpu extends BoundValueIs<SuspendDispatcher> {
        Cpu() {
            super(SUSPEND_DISPATCHER, SuspendDispatcher.class, SuspendDispatcher.OFF_PUMP, SuspendDispatcher.CPU);
        }
    }
}
