package dev.corobridge.context.internal;

/**
 * Putting a thread's own context back after work ran with other values on it: the registry's
 * thread-locals first, then the MDC (the reverse of installing them). Shared by the scope of a
 * restored capture ({@code RestoredContext}) and of a cleared thread ({@link ClearedContext}).
 * Not public API.
 *
 * <p><b>Failures.</b> Every value is put back whatever another throws (an accessor's
 * {@code restore}, such as Micrometer's observation accessor asserting a balanced scope under
 * {@code -ea}); then the first failure is thrown, the later ones suppressed.
 *
 * <p><b>Thread-safety.</b> Stateless; call it on the thread whose values it puts back.
 */
public final class ThreadValues {

    private ThreadValues() {
    }

    /**
     * Puts back {@code previousRegistry} for the thread-locals of {@code registry} (none if it is
     * null), then {@code previousMdc} (when SLF4J is present).
     */
    public static void putBack(Object previousMdc, Object registry, Object previousRegistry) {
        Throwable failure = null;
        if (registry != null) {
            try {
                RegistryValues.reinstate(registry, previousRegistry);
            } catch (Throwable e) {
                failure = e;
            }
        }
        if (MdcValues.PRESENT) {
            try {
                MdcValues.reinstate(previousMdc);
            } catch (Throwable e) {
                failure = Failures.first(failure, e);
            }
        }
        if (failure != null) {
            throw Failures.unchecked(failure);
        }
    }
}
