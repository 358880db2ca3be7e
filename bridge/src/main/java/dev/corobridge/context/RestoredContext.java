package dev.corobridge.context;

import dev.corobridge.context.internal.ThreadValues;

/**
 * The scope of a {@link CapturedContext#restore()}: closing it puts back the values the thread had
 * before — the registry's thread-locals first, then the MDC (the reverse of restoring). Every one
 * of them is put back whatever another throws (an accessor's {@code restore}, such as Micrometer's
 * observation accessor asserting a balanced scope under {@code -ea}); then the first failure is
 * thrown, the later ones suppressed.
 *
 * <p><b>Thread-safety.</b> Close it on the thread that restored, once; a second close does nothing.
 */
public final class RestoredContext implements AutoCloseable {

    static final RestoredContext NOTHING = new RestoredContext(null, null, null);

    /** The thread's MDC before (set whenever SLF4J is present, see {@link CapturedContext#restore()}). */
    private final Object previousMdc;
    private final Object registry;
    private final Object previousRegistry;
    private boolean closed;

    RestoredContext(Object previousMdc, Object registry, Object previousRegistry) {
        this.previousMdc = previousMdc;
        this.registry = registry;
        this.previousRegistry = previousRegistry;
    }

    /** Puts back the thread's previous values. */
    @Override
    public void close() {
        if (closed || this == NOTHING) {
            return;
        }
        closed = true;
        ThreadValues.putBack(previousMdc, registry, previousRegistry);
    }
}
