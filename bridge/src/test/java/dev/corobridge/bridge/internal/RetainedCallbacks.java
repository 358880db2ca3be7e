package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * How many callback nodes a corobridge awaitable keeps, withdrawn ones included: what the leak
 * tests of waiter churn measure, from any test package. Works for every awaitable that keeps its
 * outcome through {@link OutcomeFields} (a task, a promise, an {@link OutcomeCell}): it finds the
 * class's {@code static final OutcomeFields}.
 */
public final class RetainedCallbacks {

    private RetainedCallbacks() {
    }

    /** The nodes of {@code awaitable}'s pending stack (0 once it is decided). */
    public static int of(Awaitable<?> awaitable) {
        return fieldsOf(awaitable.getClass()).retainedCallbacks(awaitable);
    }

    private static OutcomeFields fieldsOf(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (f.getType() == OutcomeFields.class && Modifier.isStatic(f.getModifiers())) {
                    try {
                        f.setAccessible(true);
                        return (OutcomeFields) f.get(null);
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
        throw new IllegalArgumentException(type + " keeps no OutcomeFields");
    }
}
