package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.ExecutionContext;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>Which {@link ExecutionContext} a {@code CoroutineDispatcher} is the Kotlin face of (a pump's
 * dispatcher, a ring's). Java APIs that take a dispatcher use the context's own
 * {@link java.util.concurrent.Executor} face through it, so work refused after shutdown is reported
 * as a {@link dev.corobridge.bridge.ContextShutdownException} instead of running elsewhere, and
 * hop traces show the context's name.
 *
 * <p>A registry by class rather than an interface the dispatchers implement, so that no type of
 * this package is in their public signatures: a dispatcher class registers how to read its
 * context when its first instance is made ({@link #register}), and a lookup is one
 * {@link ClassValue} read and a call. A class registers before any of its instances can be looked
 * up (the instance's constructor does it), and registrations are never removed: a few per
 * application, one per dispatcher class.
 *
 * <p><b>Thread-safety.</b> Safe from any thread; {@link #register} happens-before every lookup
 * that finds it.
 */
public final class BoundDispatchers {

    private static final Function<Object, ExecutionContext> NONE = d -> null;
    private static final ConcurrentHashMap<Class<?>, Function<Object, ExecutionContext>> REGISTERED =
            new ConcurrentHashMap<>();
    private static final ClassValue<Function<Object, ExecutionContext>> BY_CLASS = new ClassValue<>() {
        @Override
        protected Function<Object, ExecutionContext> computeValue(Class<?> type) {
            return REGISTERED.getOrDefault(type, NONE);
        }
    };

    private BoundDispatchers() {
    }

    /**
     * Records that an instance {@code d} of {@code type} (exactly that class) runs on
     * {@code contextOf.apply(d)}. Idempotent: the first registration of a class wins.
     */
    @SuppressWarnings("unchecked")
    public static <D> void register(Class<D> type, Function<? super D, ? extends ExecutionContext> contextOf) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(contextOf, "contextOf");
        if (REGISTERED.putIfAbsent(type, d -> contextOf.apply((D) d)) == null) {
            BY_CLASS.remove(type); // forget a "none" read before the registration, if any
        }
    }

    /** The context {@code dispatcher} is the face of, or null when it is not a registered one. */
    public static ExecutionContext contextOf(Object dispatcher) {
        return dispatcher == null ? null : BY_CLASS.get(dispatcher.getClass()).apply(dispatcher);
    }
}
