package dev.corobridge.context;

/**
 * Which captured context the current thread runs a step of: set while a {@link CapturedContext}
 * is restored on it, so that a capture inside the step can hand out that same context instead of
 * a new one when the thread's values are still exactly those restored
 * ({@link ContextPropagation#capture()} checks them; this is only the candidate). Cleared when the
 * step's scope is closed, so nothing is kept on an idle thread.
 *
 * <p><b>Thread-safety.</b> One holder per thread, touched only by that thread. Scopes close in the
 * reverse order of their restores on a thread; should they not, the candidate may be stale, which
 * costs a fresh capture or, when the values happen to match, hands out a context equal to a fresh
 * capture — never a wrong one, since the capture checks the values.
 */
final class CurrentStep {

    private static final ThreadLocal<CurrentStep> HERE = ThreadLocal.withInitial(CurrentStep::new);

    private CapturedContext current;

    private CurrentStep() {
    }

    /** Makes {@code restored} the thread's step; returns the one it was in before (null: none). */
    static CapturedContext enter(CapturedContext restored) {
        CurrentStep s = HERE.get();
        CapturedContext outer = s.current;
        s.current = restored;
        return outer;
    }

    /** The step's scope closed: the thread is in {@code outer} again. */
    static void leave(CapturedContext outer) {
        HERE.get().current = outer;
    }

    /** The context of the step the thread runs, or null. */
    static CapturedContext current() {
        return HERE.get().current;
    }
}
