package dev.corobridge.reactor.internal;

import dev.corobridge.context.internal.Failures;
import dev.corobridge.context.internal.OptionalClasses;
import dev.corobridge.context.internal.RegistryValues;
import java.util.function.Supplier;
import reactor.util.context.ContextView;

/**
 * A Reactor subscriber's {@code Context} as thread-locals, for {@code TaskMono.defer},
 * {@code ReactorContexts} and {@code withSubscriberContext}: the values of the thread-locals
 * registered with Micrometer's {@code ContextRegistry} are taken from the {@code Context} and set
 * on the calling thread (an accessor without a value there is left as the thread has it), then the
 * thread's own values are put back. Without context-propagation on the class path there is nothing
 * to set. Not public API.
 *
 * <p><b>Failures.</b> The values are set and put back by the bridge's {@code RegistryValues}, not by
 * Micrometer's {@code ContextSnapshot}, whose scope leaves the values already set on the thread when
 * a later accessor's {@code setValue} throws, and stops putting back at the first {@code restore}
 * that throws. Here a refused value puts back those set before it, then the refusal is thrown; a
 * put-back puts back every value, then throws the first failure.
 */
public final class SubscriberContext {

    private static final boolean PRESENT = OptionalClasses.present("io.micrometer.context.ContextRegistry", SubscriberContext.class);

    private SubscriberContext() {
    }

    /** Calls {@code body} with {@code context}'s registered values as the thread's. */
    public static <T> T with(ContextView context, Supplier<T> body) {
        Object opened = open(context);
        if (opened == null) {
            return body.get();
        }
        T result;
        try {
            result = body.get();
        } catch (Throwable e) { // also a checked exception thrown past the Supplier (Kotlin, a sneaky throw)
            try {
                close(opened);
            } catch (Throwable putBack) {
                Failures.first(e, putBack);
            }
            throw SubscriberContext.<RuntimeException>rethrow(e); // as it came: the caller sees the body's own exception
        }
        close(opened);
        return result;
    }

    /** Throws {@code e} as it is, checked or not. */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E rethrow(Throwable e) throws E {
        throw (E) e;
    }

    /**
     * Sets {@code context}'s registered values on the calling thread; returns what {@link #close}
     * needs to put the thread's own back, or null when nothing was set. If an accessor refuses its
     * value, the values set before it are put back and its exception is thrown.
     */
    public static Object open(ContextView context) {
        if (!PRESENT || context.isEmpty()) {
            return null;
        }
        return Registry.open(context);
    }

    /**
     * Puts back the thread's own values after {@link #open} (on the same thread); every value is put
     * back, whatever one accessor throws, then the first failure is thrown.
     */
    public static void close(Object opened) {
        if (opened != null) {
            Registry.close(opened);
        }
    }

    /** Touches context-propagation's classes (through the bridge's registry code) only when they are there. */
    private static final class Registry {

        /** The values set and what the thread had before them. */
        private record Opened(Object values, Object previous) {
        }

        static Object open(ContextView context) {
            Object values = RegistryValues.readFrom(context);
            return values == null ? null : new Opened(values, RegistryValues.install(values));
        }

        static void close(Object opened) {
            Opened o = (Opened) opened;
            RegistryValues.reinstate(o.values(), o.previous());
        }
    }
}
