package dev.corobridge.context;

import dev.corobridge.context.internal.MdcValues;
import dev.corobridge.context.internal.RegistryValues;

/**
 * Makes thread-bound context travel with tasks: the values present on the thread that starts a
 * {@link dev.corobridge.bridge.Task} (or a coroutine-backed task) are put back on every thread the
 * task's work later runs on — a pump, a ring, a CPU pool, a virtual thread — and removed again when
 * that step ends, so nothing leaks to the next, unrelated piece of work on the same thread.
 *
 * <h2>What travels</h2>
 * <ul>
 *   <li>SLF4J's {@code MDC} (the whole map), when {@code slf4j-api} is on the class path;</li>
 *   <li>every thread-local registered with Micrometer's {@code ContextRegistry}
 *       ({@code io.micrometer:context-propagation}), when it is on the class path: the mechanism
 *       Reactor and Spring use, so the current {@code Observation} (and with it the tracing span),
 *       Spring Security's context or your own registered thread-locals travel the same way.</li>
 * </ul>
 * Neither library is required: without them there is nothing to carry and propagation costs one
 * volatile read per task.
 *
 * <h2>When values are captured</h2>
 * A task captures when it is created on the thread that creates it ({@code Task.start},
 * {@code Task.startSuspend}, Kotlin's {@code scope.task {}}, {@code TaskScope.fork}, and tasks made
 * of a future, a {@code Deferred} or other awaitables). The stages of a chain ({@code thenOn},
 * {@code recoverOn}, ...) carry their first task's values, whatever thread builds the chain. A
 * coroutine-backed task carries them in its coroutine context ({@code PropagatedContext}), so its
 * {@code withContext} blocks and child coroutines have them too. When nothing was captured (the
 * MDC and every registered thread-local were empty), the task's steps leave the threads they run on
 * untouched; otherwise each step sees exactly what was captured (an MDC key or a registered
 * thread-local the capturing thread did not have is absent, even if the worker thread had one),
 * and afterwards the thread has exactly its own values again (a registered thread-local the step
 * set is cleared, even when neither side had one).
 *
 * <h2>When a restore fails</h2>
 * A registered accessor (or an observation handler it calls) that throws while a step's context is
 * restored decides the task with that failure: the step's body does not run, and the thread is
 * left with its own values. A coroutine fails with it at that resume (see {@code PropagatedContext}).
 * A failure while the thread's own values are put back at the end of a step does not change the
 * task's outcome; every other value is still put back and the failure is reported to
 * {@code Tasks.uncaughtFailureHandler()}.
 *
 * <p><b>Thread-safety.</b> Safe from any thread. {@link #setEnabled} affects tasks created after
 * it; a task created while it was on keeps carrying its values.
 */
public final class ContextPropagation {

    private static volatile boolean enabled =
            !"false".equalsIgnoreCase(System.getProperty("corobridge.propagation", "true"));

    private ContextPropagation() {
    }

    /** Turns propagation for new tasks on or off (default on; {@code -Dcorobridge.propagation=false}). */
    public static void setEnabled(boolean on) {
        enabled = on;
    }

    /** Whether new tasks capture and carry context. */
    public static boolean isEnabled() {
        return enabled;
    }

    /**
     * The context of the current thread, to restore elsewhere with {@link CapturedContext#restore()}:
     * {@link CapturedContext#NONE} when propagation is off or there is nothing to carry.
     */
    public static CapturedContext capture() {
        if (!enabled) {
            return CapturedContext.NONE;
        }
        Object mdc = MdcValues.PRESENT ? MdcValues.capture() : null;
        boolean anyRegistered = RegistryValues.PRESENT && RegistryValues.anyValue();
        if (mdc == null && !anyRegistered) {
            return CapturedContext.NONE; // nothing to carry: a task leaves the threads it runs on as they are
        }
        CapturedContext step = CurrentStep.current();
        if (step != null && step.mdc() == mdc && (!RegistryValues.PRESENT || RegistryValues.matches(step.registry()))) {
            return step; // inside a step whose values are unchanged: the same context, nothing copied
        }
        Object registry = anyRegistered ? RegistryValues.capture() : null;
        if (registry == null && RegistryValues.PRESENT) {
            registry = RegistryValues.captureNone(); // an MDC only: the registered thread-locals are seen empty
        }
        return new CapturedContext(mdc, registry);
    }
}
