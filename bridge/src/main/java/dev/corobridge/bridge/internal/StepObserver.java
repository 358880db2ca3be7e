package dev.corobridge.bridge.internal;

/**
 * What observes the work of tasks (installed by {@code dev.corobridge.observation.TaskObservations}):
 * told when a task's work begins, of each hop it makes, and of its outcome. Not public API.
 *
 * <p>Implementations must be thread-safe: steps of different tasks begin concurrently.
 */
public interface StepObserver {

    /**
     * A task's work begins on the current thread (with the task's captured context restored, so a
     * current observation there is the parent): {@code task} its name, {@code context} where it
     * runs, {@code note} its label. {@code chain} is the first observed step of the task chain this
     * work belongs to (a Java chain's first stage), or null: the parent when nothing is current, so
     * that one chain is one trace. Returns the step, or {@code null} to leave this one unobserved.
     */
    Step begin(String task, String context, String note, Step chain);

    /** One observed task: its scope on a thread, its hops, its end. */
    interface Step {

        /**
         * Makes the step current on this thread until the returned scope is closed (on this thread).
         * When this or the scope's {@code close()} throws, the thread's previous current step is
         * current again all the same.
         */
        AutoCloseable open();

        /** The task hopped to {@code context} on {@code thread}, labelled {@code note}. */
        void hop(String context, String note, String thread);

        /**
         * The task ended: {@code error} is its failure or cancellation cause, or null for a value;
         * called exactly once, on the thread that decided the task.
         */
        void end(Throwable error, boolean cancelled);
    }
}
