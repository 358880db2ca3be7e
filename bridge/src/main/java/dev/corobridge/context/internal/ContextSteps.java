package dev.corobridge.context.internal;

import dev.corobridge.context.CapturedContext;
import dev.corobridge.context.RestoredContext;
import java.util.function.Function;

/**
 * How a task's steps restore their captured context: like {@link CapturedContext#restore()}, but
 * the scope, which the step closes exactly once, is shared by every step of that context on a
 * thread that had none of the values before (nothing to remember there, so a step allocates no
 * scope of its own). {@code CapturedContext} installs the implementation when it is initialised;
 * not public API.
 *
 * <p><b>Thread-safety.</b> Safe from any thread; the scope is closed on the thread that restored.
 */
public final class ContextSteps {

    private static volatile Function<CapturedContext, RestoredContext> enter;

    private ContextSteps() {
    }

    /** Called once, by {@code CapturedContext}'s initialisation. */
    public static void install(Function<CapturedContext, RestoredContext> implementation) {
        synchronized (ContextSteps.class) {
            if (enter != null) {
                throw new IllegalStateException("ContextSteps is installed already");
            }
            enter = implementation;
        }
    }

    /**
     * Restores {@code captured} for one step; close the returned scope exactly once, on this
     * thread. Throws what the restore throws, with the thread's own values back.
     */
    public static RestoredContext enter(CapturedContext captured) {
        return enter.apply(captured); // installed: an instance of CapturedContext exists
    }
}
