package dev.corobridge.context.internal;

import dev.corobridge.context.CapturedContext;
import dev.corobridge.context.RestoredContext;

/**
 * How a task's steps restore their captured context: like {@link CapturedContext#restore()}, but
 * the scope, which the step closes exactly once, is shared by every step of that context on a
 * thread that had none of the values before (nothing to remember there, so a step allocates no
 * scope of its own), and by every step of it on a thread that has exactly its values already
 * (nothing is set, closing only undoes what the step changed). {@code CapturedContext} installs the implementation when it is initialised;
 * not public API.
 *
 * <p><b>Thread-safety.</b> Safe from any thread; the scope is closed on the thread that restored.
 */
public final class ContextSteps {

    /** What {@code CapturedContext} provides. */
    public interface Implementation {
        /** See {@link ContextSteps#enter}. */
        RestoredContext enter(CapturedContext captured);

        /** See {@link ContextSteps#sameValues}. */
        boolean sameValues(CapturedContext a, CapturedContext b);

        /** See {@link ContextSteps#inStepOf}. */
        boolean inStepOf(CapturedContext captured);
    }

    private static volatile Implementation steps;

    private ContextSteps() {
    }

    /** Called once, by {@code CapturedContext}'s initialisation. */
    public static void install(Implementation implementation) {
        synchronized (ContextSteps.class) {
            if (steps != null) {
                throw new IllegalStateException("ContextSteps is installed already");
            }
            steps = implementation;
        }
    }

    /**
     * Restores {@code captured} for one step; close the returned scope exactly once, on this
     * thread. Throws what the restore throws, with the thread's own values back.
     */
    public static RestoredContext enter(CapturedContext captured) {
        return steps.enter(captured); // installed: an instance of CapturedContext exists
    }

    /**
     * Whether {@code a} and {@code b} hold the same values (the same MDC map, the same registered
     * thread-locals with the same values): a step of one, restored while the other is in place,
     * sets nothing. False when either is {@code NONE}.
     */
    public static boolean sameValues(CapturedContext a, CapturedContext b) {
        return steps.sameValues(a, b);
    }

    /**
     * Whether the current thread runs a step that restored {@code captured}'s values (a step of it,
     * or of a context with the same values): what runs here now sees them. A thread-local read.
     */
    public static boolean inStepOf(CapturedContext captured) {
        return steps.inStepOf(captured);
    }
}
