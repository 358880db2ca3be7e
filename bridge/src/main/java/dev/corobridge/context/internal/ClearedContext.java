package dev.corobridge.context.internal;

/**
 * The current thread's context taken off it until {@link #close()}: the MDC emptied and every
 * thread-local registered with Micrometer's {@code ContextRegistry} cleared, as a restore of a
 * capture that holds nothing does ({@code setValue()} for each that has a value: Micrometer's
 * observation accessor opens a no-op scope, so the current observation is the
 * {@code NullObservation}); closing puts every value back ({@link ThreadValues}), and clears one
 * the work left behind. For code that runs unrelated work in the middle of a step, such as a
 * message pump's nested loop: the work must not see, nor capture, the step's context. Not public
 * API.
 *
 * <p><b>Failures.</b> As {@code CapturedContext}: if clearing throws, what was cleared is put back
 * and the exception rethrown; closing puts back everything whatever one accessor throws, then
 * throws the first failure.
 *
 * <p><b>Thread-safety.</b> Confined to the thread that cleared: close it there, once (a second close
 * does nothing).
 */
public final class ClearedContext implements AutoCloseable {

    /** The thread's MDC before (null when it was empty or SLF4J is absent). */
    private final Object previousMdc;
    /** A capture of nothing for every registered thread-local, or null when none is registered. */
    private final Object none;
    private final Object previousRegistry;
    private boolean closed;

    private ClearedContext(Object previousMdc, Object none, Object previousRegistry) {
        this.previousMdc = previousMdc;
        this.none = none;
        this.previousRegistry = previousRegistry;
    }

    /** Clears the current thread's context until the returned scope is closed. */
    public static ClearedContext clearHere() {
        Object previousMdc = MdcValues.PRESENT ? MdcValues.install(null) : null;
        Object none = RegistryValues.PRESENT ? RegistryValues.captureNone() : null;
        Object previousRegistry;
        try {
            previousRegistry = none != null ? RegistryValues.install(none) : null;
        } catch (RuntimeException | Error e) { // the registry's values are already back
            if (MdcValues.PRESENT) {
                MdcValues.reinstate(previousMdc);
            }
            throw e;
        }
        return new ClearedContext(previousMdc, none, previousRegistry);
    }

    /** Puts the thread's context back: the registry's thread-locals, then the MDC. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        ThreadValues.putBack(previousMdc, none, previousRegistry);
    }
}
