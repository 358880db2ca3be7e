package dev.corobridge.context.internal;

import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;

/**
 * Micrometer's {@code ContextRegistry} for {@code dev.corobridge.context}: the thread-locals
 * registered there (by Reactor, Micrometer Observation, Spring, the user) captured as a
 * {@code ContextSnapshot} and set around a piece of work. Only touched when {@link #PRESENT}
 * (context-propagation on the class path), so the library runs without it.
 *
 * <p>Snapshots are made with {@code clearMissing}: installing one also clears the registered
 * thread-locals it has no value for, so the work sees what the capturing thread saw. The global
 * registry is read at each capture, so accessors registered later take part. Not public API.
 */
public final class RegistryValues {

    /** Whether context-propagation is on the class path. */
    public static final boolean PRESENT = present();

    private RegistryValues() {
    }

    /**
     * The current thread's registered thread-locals (possibly none with a value), or null when no
     * thread-local is registered at all.
     */
    public static Object capture() {
        if (ContextRegistry.getInstance().getThreadLocalAccessors().isEmpty()) {
            return null;
        }
        return Factory.CLEARING.captureAll();
    }

    /** Whether a snapshot from {@link #capture} holds no value. */
    public static boolean isEmpty(Object snapshot) {
        // The default snapshot is a map of accessor keys to values; another kind counts as not empty.
        return snapshot instanceof java.util.Map<?, ?> m && m.isEmpty();
    }

    /** Sets the snapshot's values on this thread; the returned scope puts the previous ones back. */
    public static AutoCloseable install(Object snapshot) {
        return ((ContextSnapshot) snapshot).setThreadLocals();
    }

    /** Closes what {@link #install} returned. */
    public static void close(AutoCloseable scope) {
        ((ContextSnapshot.Scope) scope).close();
    }

    /** Writes the snapshot's values into {@code context} (e.g. a Reactor {@code Context}). */
    public static <C> C writeTo(Object snapshot, C context) {
        return ((ContextSnapshot) snapshot).updateContext(context);
    }

    private static final class Factory {
        static final ContextSnapshotFactory CLEARING = ContextSnapshotFactory.builder()
                .contextRegistry(ContextRegistry.getInstance())
                .clearMissing(true)
                .build();
    }

    private static boolean present() {
        try {
            Class.forName("io.micrometer.context.ContextRegistry", false, RegistryValues.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
