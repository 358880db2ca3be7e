package dev.corobridge.context;

import dev.corobridge.context.internal.ContextSteps;
import dev.corobridge.context.internal.Failures;
import dev.corobridge.context.internal.MdcValues;
import dev.corobridge.context.internal.RegistryValues;
import java.util.Objects;
import java.util.concurrent.Callable;

/**
 * The thread-bound context captured on one thread ({@link ContextPropagation#capture()}): SLF4J's
 * MDC and the thread-locals of Micrometer's {@code ContextRegistry}, to put back on another thread
 * around a piece of work.
 *
 * <pre>{@code
 * CapturedContext ctx = ContextPropagation.capture();        // on the request's thread
 * executor.execute(() -> {
 *     try (RestoredContext r = ctx.restore()) {              // on the worker
 *         log.info("has the request's MDC and trace");
 *     }                                                      // the worker's own values are back
 * });
 * }</pre>
 * Tasks do this by themselves at every hop; this class is for work handed to code that is not a
 * task. {@link #wrap(Runnable)} and {@link #wrap(Callable)} do the same for a runnable.
 *
 * <p><b>Restoring.</b> {@link #restore()} sets the MDC to exactly the captured map and each registered
 * thread-local to its captured value (those not captured are cleared, so the work sees what the
 * capturing thread saw, not what the worker had); {@link RestoredContext#close()} puts back what the
 * thread had before — every registered thread-local, also one that neither side had, so a value
 * the work set does not stay behind it (Micrometer's "clear missing" contract). The MDC is set
 * before the registry's thread-locals and put back after them, so a tracing library that writes
 * trace ids into the MDC when its span is put in scope finds the captured map and leaves the
 * thread's own map behind it.
 *
 * <p><b>Failures.</b> If an accessor's {@code setValue} throws (or an observation handler it calls),
 * {@link #restore()} puts back what it had already set and the MDC, then rethrows: the thread is as
 * it was. {@link RestoredContext#close()} puts back everything whatever one accessor throws, then
 * throws the first failure.
 *
 * <p><b>Thread-safety.</b> Immutable: one captured context may be restored on many threads at once
 * (each restore returns its own {@link RestoredContext}, to be closed on the thread that restored).
 */
public final class CapturedContext {

    static {
        ContextSteps.install(new ContextSteps.Implementation() { // a task's steps restore through it (not public API)
            @Override
            public RestoredContext enter(CapturedContext captured) {
                return captured.enterStep();
            }

            @Override
            public boolean sameValues(CapturedContext a, CapturedContext b) {
                return a.sameValues(b);
            }

            @Override
            public boolean inStepOf(CapturedContext captured) {
                CapturedContext step = CurrentStep.current();
                return step != null && step.sameValues(captured);
            }
        });
    }

    /** Nothing captured: restoring it changes nothing. */
    public static final CapturedContext NONE = new CapturedContext(null, null);

    /** The MDC map (an immutable copy), or null. */
    private final Object mdc;
    /** The registry's thread-locals ({@code RegistryValues}), or null. */
    private final Object registry;
    /** The scope of a step on a clean thread, made at the first such step ({@link #enterStep()}). */
    private RestoredContext cleanStep;
    /** The scope of a step on a thread that has these values already, made at the first such step. */
    private RestoredContext inPlaceStep;

    CapturedContext(Object mdc, Object registry) {
        this.mdc = mdc;
        this.registry = registry;
    }

    /** Whether nothing was captured ({@link #NONE}). */
    public boolean isEmpty() {
        return this == NONE;
    }

    /**
     * Puts the captured values on the current thread until the returned scope is closed (on this
     * thread; closing twice does nothing). If a registered thread-local's accessor throws, the
     * thread's own values are put back and the exception is rethrown.
     */
    public RestoredContext restore() {
        return restore(false);
    }

    /**
     * {@link #restore()} for one step of a task or coroutine, whose scope is closed exactly once:
     * on a thread that had no MDC and no registered value before and runs no other step (the
     * usual case for a worker thread), the scope is one shared by every step of this context, so a
     * step allocates nothing of its own here.
     */
    RestoredContext enterStep() {
        return restore(true);
    }

    private RestoredContext restore(boolean step) {
        if (isEmpty()) {
            return RestoredContext.NOTHING;
        }
        boolean setMdc = MdcValues.PRESENT; // also when the captured MDC was empty: the work sees it empty
        Object previousMdc = setMdc ? MdcValues.install(mdc) : null;
        Object previousRegistry;
        try {
            previousRegistry = registry != null ? RegistryValues.install(registry) : null;
        } catch (RuntimeException | Error e) { // the registry's values are already back
            if (setMdc) {
                try {
                    MdcValues.reinstate(previousMdc);
                } catch (RuntimeException | Error mdcFailure) {
                    Failures.first(e, mdcFailure);
                }
            }
            throw e;
        }
        if (step && previousMdc == mdc && (registry == null || previousRegistry == RegistryValues.ALL_IN_PLACE)) {
            // Every value was in place already (a step nested in one of an equal context): nothing
            // was set, and closing only undoes what the step changes. The thread's step stays.
            RestoredContext inPlace = inPlaceStep;
            if (inPlace == null) { // a benign race, as for cleanStep
                inPlace = new RestoredContext(this, mdc, previousRegistry, null, true, false);
                inPlaceStep = inPlace;
            }
            return inPlace;
        }
        CapturedContext outer = CurrentStep.enter(this);
        if (step && outer == null && previousMdc == null
                && (previousRegistry == null || previousRegistry == RegistryValues.NONE_BEFORE)) {
            RestoredContext clean = cleanStep;
            if (clean == null) { // a benign race: each thread may make one, all equivalent
                clean = new RestoredContext(this, null, previousRegistry, null, true, true);
                cleanStep = clean;
            }
            return clean;
        }
        return new RestoredContext(this, previousMdc, previousRegistry, outer, false, true);
    }

    /**
     * Whether {@code other} holds the same values as this context: the same MDC map and the same
     * registered thread-locals with the same values (the same objects), as two captures on one
     * thread whose values did not change in between.
     */
    boolean sameValues(CapturedContext other) {
        return other == this || (other != null && other != NONE && this != NONE && other.mdc == mdc
                && RegistryValues.sameValues(other.registry, registry));
    }

    /** The captured MDC ({@code MdcValues}), or null. */
    Object mdc() {
        return mdc;
    }

    /** The captured registry values ({@code RegistryValues}), or null. */
    Object registry() {
        return registry;
    }

    /** {@code body} run with this context restored around it. */
    public Runnable wrap(Runnable body) {
        Objects.requireNonNull(body, "body");
        if (isEmpty()) {
            return body;
        }
        return () -> {
            try (RestoredContext r = restore()) {
                body.run();
            }
        };
    }

    /** {@code body} called with this context restored around it. */
    public <T> Callable<T> wrap(Callable<T> body) {
        Objects.requireNonNull(body, "body");
        if (isEmpty()) {
            return body;
        }
        return () -> {
            try (RestoredContext r = restore()) {
                return body.call();
            }
        };
    }

    /**
     * The captured values written into a Reactor {@code Context} or another context type known to
     * Micrometer's {@code ContextRegistry} (those of the registry's thread-locals; the MDC goes only
     * if an MDC accessor is registered). Returns {@code context} unchanged when nothing was captured
     * from the registry.
     */
    public <C> C writeTo(C context) {
        Objects.requireNonNull(context, "context");
        return registry != null ? RegistryValues.writeTo(registry, context) : context;
    }

    @Override
    public String toString() {
        return "CapturedContext[mdc=" + mdc + ", registry=" + registry + "]";
    }
}
