package dev.corobridge.context.internal;

/**
 * Whether an optional dependency is on the class path, asked without initialising anything: the
 * context support touches SLF4J, context-propagation and Micrometer only when they are there.
 * Stateless; not public API.
 */
public final class OptionalClasses {

    private OptionalClasses() {
    }

    /** Whether {@code className} can be loaded by {@code from}'s class loader. */
    public static boolean present(String className, Class<?> from) {
        try {
            Class.forName(className, false, from.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
