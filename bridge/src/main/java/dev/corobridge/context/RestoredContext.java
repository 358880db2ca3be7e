package dev.corobridge.context;

import dev.corobridge.context.internal.ThreadValues;

/**
 * The scope of a {@link CapturedContext#restore()}: closing it puts back the values the thread had
 * before — the registry's thread-locals first, then the MDC (the reverse of restoring). Every one
 * of them is put back whatever another throws (an accessor's {@code restore}, such as Micrometer's
 * observation accessor asserting a balanced scope under {@code -ea}); then the first failure is
 * thrown, the later ones suppressed.
 *
 * <p>A task's steps use a shared scope per captured context for the common case of a thread that
 * had none of the values before (nothing to remember, so nothing to allocate), and another for a
 * thread that has exactly the captured values already (nothing was set; closing only undoes what
 * the step changed); the scope returned by {@link CapturedContext#restore()} is always a new one.
 *
 * <p><b>Thread-safety.</b> Close it on the thread that restored, once; a second close does nothing.
 */
public final class RestoredContext implements AutoCloseable {

    static final RestoredContext NOTHING = new RestoredContext(null, null, null, null, false, false);

    /** What was restored (null only for {@link #NOTHING}). */
    private final CapturedContext captured;
    /** The thread's MDC before (set whenever SLF4J is present, see {@link CapturedContext#restore()}). */
    private final Object previousMdc;
    private final Object previousRegistry;
    /** The step the thread was in before ({@link CurrentStep}), or null. */
    private final CapturedContext outer;
    /** The shared scope of a clean thread ({@link CapturedContext#enterStep()}): closable once per step, not once in all. */
    private final boolean shared;
    /** Whether the restore made {@link #captured} the thread's step ({@link CurrentStep}), to be undone here. */
    private final boolean entered;
    private boolean closed;

    RestoredContext(CapturedContext captured, Object previousMdc, Object previousRegistry, CapturedContext outer,
            boolean shared, boolean entered) {
        this.captured = captured;
        this.previousMdc = previousMdc;
        this.previousRegistry = previousRegistry;
        this.outer = outer;
        this.shared = shared;
        this.entered = entered;
    }

    /** Puts back the thread's previous values. */
    @Override
    public void close() {
        if (this == NOTHING) {
            return;
        }
        if (!shared) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (entered) {
            CurrentStep.leave(outer);
        }
        ThreadValues.putBack(previousMdc, captured.registry(), previousRegistry);
    }
}
