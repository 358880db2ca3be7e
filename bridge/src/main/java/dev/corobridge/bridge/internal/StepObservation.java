package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Outcome;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>How a task drives its observation ({@link StepObserver}, installed by
 * {@code TaskObservations}): begin it where the task's work first runs, record each hop, open its
 * scope around the work on a thread, end it with the task's outcome. <b>An observer never fails
 * the task:</b> whatever it throws is reported as an uncaught failure and the task goes on;
 * once it began an observation, that observation still ends with the task.
 *
 * <p>Stateless; thread-safe. The task keeps its current step (and ends it exactly once).
 */
public final class StepObservation {

    private StepObservation() {
    }

    /**
     * Begins the observation of task {@code task}'s work on the current thread and records the
     * hop to {@code ctx}: the step, or null when nothing observes or the observer failed to begin.
     * {@code chain}: the first observed step of the task's chain, if any ({@link StepObserver#begin}).
     */
    public static StepObserver.Step begin(String task, String ctx, String note, StepObserver.Step chain) {
        StepObserver observer = StepObservers.get();
        if (observer == null) {
            return null;
        }
        StepObserver.Step step;
        try {
            step = observer.begin(task, ctx, note, chain);
        } catch (Throwable e) {
            UncaughtFailures.report(null, e); // an observer's failure never fails the task
            return null;
        }
        if (step != null) {
            hop(step, ctx, note); // a failing hop event still leaves the step to end with the task
        }
        return step;
    }

    /** Makes {@code step} current on this thread: the scope to close, or null if it failed to open. */
    public static AutoCloseable open(StepObserver.Step step) {
        try {
            return step.open();
        } catch (Throwable e) {
            UncaughtFailures.report(null, e); // the work runs unobserved on this thread; the observation still ends
            return null;
        }
    }

    /** Records a hop of the observed work to {@code ctx}, on the current thread. */
    public static void hop(StepObserver.Step step, String ctx, String note) {
        try {
            step.hop(ctx, note, Thread.currentThread().getName());
        } catch (Throwable e) {
            UncaughtFailures.report(null, e);
        }
    }

    /** Ends {@code step} with the task's outcome. */
    public static void end(StepObserver.Step step, Outcome<?> outcome) {
        try {
            switch (outcome) {
                case Outcome.Success<?> x -> step.end(null, false);
                case Outcome.Failure<?> f -> step.end(f.error(), false);
                case Outcome.Cancelled<?> c -> step.end(c.cause(), true);
            }
        } catch (Throwable e) {
            UncaughtFailures.report(null, e);
        }
    }

    /** Closes a scope of {@link #open}; a failure is reported, never thrown. */
    public static void close(AutoCloseable scope) {
        try {
            scope.close();
        } catch (Throwable e) {
            UncaughtFailures.report(null, e);
        }
    }
}
