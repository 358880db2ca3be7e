package dev.corobridge.reactor.internal;

import dev.corobridge.context.internal.OptionalClasses;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import java.util.function.Supplier;
import reactor.util.context.ContextView;

/**
 * A Reactor subscriber's {@code Context} as thread-locals, for {@code TaskMono.defer}: the values
 * of the thread-locals registered with Micrometer's {@code ContextRegistry} are taken from the
 * {@code Context} and set on the subscribing thread while the task is created (so the task captures
 * them), then the thread's own values are put back. Without context-propagation on the class path
 * there is nothing to set. Not public API.
 */
public final class SubscriberContext {

    private static final boolean PRESENT = OptionalClasses.present("io.micrometer.context.ContextSnapshotFactory", SubscriberContext.class);

    private SubscriberContext() {
    }

    /** Calls {@code body} with {@code context}'s registered values as the thread's. */
    public static <T> T with(ContextView context, Supplier<T> body) {
        if (!PRESENT || context.isEmpty()) {
            return body.get();
        }
        return Registry.with(context, body);
    }

    /** Touches context-propagation's classes only when they are there. */
    private static final class Registry {
        static final ContextSnapshotFactory FACTORY = ContextSnapshotFactory.builder().build();

        static <T> T with(ContextView context, Supplier<T> body) {
            try (ContextSnapshot.Scope scope = FACTORY.setThreadLocalsFrom(context)) {
                return body.get();
            }
        }
    }
}
