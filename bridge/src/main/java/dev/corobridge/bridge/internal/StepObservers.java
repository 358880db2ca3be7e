package dev.corobridge.bridge.internal;

/**
 * The installed {@link StepObserver}, if any: one volatile field, read once per step of work. Not
 * public API.
 */
public final class StepObservers {

    private static volatile StepObserver installed;

    private StepObservers() {
    }

    /** The installed observer, or null. */
    public static StepObserver get() {
        return installed;
    }

    /** Installs {@code observer}, replacing any other. */
    public static synchronized void set(StepObserver observer) {
        installed = observer;
    }

    /** Uninstalls {@code observer} if it is still the installed one. */
    public static synchronized void clear(StepObserver observer) {
        if (installed == observer) {
            installed = null;
        }
    }
}
