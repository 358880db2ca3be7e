package dev.corobridge.benchmarks;

import dev.corobridge.bridge.Tasks;
import dev.corobridge.context.ContextPropagation;

/**
 * The rows of the context propagation cost study, the {@code context} parameter
 * of {@link PumpHopBenchmark} and {@link TaskOverheadBenchmark}:
 * <ul>
 *   <li>{@code plain}: the benchmark as it was before the study (the default): switches as they are,
 *       no check of the context on the hop's thread;</li>
 *   <li>{@code bare} (PumpHop only): the hop loop in plain coroutines ({@code async}), no Task;
 *       tracing and propagation off; the study's floor;</li>
 *   <li>{@code off}: the loop in corobridge tasks, tracing off ({@code Tasks.setTracing(false)}) and
 *       propagation off ({@code ContextPropagation.setEnabled(false)}), nothing on the thread;</li>
 *   <li>{@code empty}: propagation on, tracing off, nothing on the thread to carry;</li>
 *   <li>{@code tracing}: propagation and tracing on (the library's defaults), nothing to carry;</li>
 *   <li>{@code on}: propagation and tracing on, and a {@link RequestContext} on the benchmark thread
 *       (two MDC entries and an {@code Observation} in scope) that every hop must carry.</li>
 * </ul>
 * Every row but {@code plain} checks on the hop's thread, at every hop, whether the context arrived
 * ({@link ContextCheck}): in {@code on} it must, everywhere else it must not.
 */
enum ContextCase {
    PLAIN("plain", false, false),
    BARE("bare", false, false),
    OFF("off", false, false),
    EMPTY("empty", false, true),
    TRACING("tracing", true, true),
    ON("on", true, true);

    private final String param;
    private final boolean tracing;
    private final boolean propagation;

    ContextCase(String param, boolean tracing, boolean propagation) {
        this.param = param;
        this.tracing = tracing;
        this.propagation = propagation;
    }

    /** The case named by a {@code context} parameter value. */
    static ContextCase of(String param) {
        for (ContextCase c : values()) {
            if (c.param.equals(param)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown context '" + param + "': one of plain, bare, off, empty, tracing, on");
    }

    /** Whether the hop's thread is checked for the context at every hop. */
    boolean checked() {
        return this != PLAIN;
    }

    /** Whether the benchmark runs its work in corobridge tasks (PumpHop: {@code plain} and {@code bare} do not). */
    boolean inTasks() {
        return this != PLAIN && this != BARE;
    }

    /** Whether a {@link RequestContext} is on the benchmark thread, and so every hop must carry it. */
    boolean carries() {
        return this == ON;
    }

    /**
     * Sets {@code Tasks.setTracing} and {@code ContextPropagation.setEnabled} for this case (nothing
     * for {@code plain}); the returned action puts back what they were.
     */
    Runnable applySwitches() {
        boolean tracingBefore = Tasks.isTracing();
        boolean propagationBefore = ContextPropagation.isEnabled();
        if (this != PLAIN) {
            Tasks.setTracing(tracing);
            ContextPropagation.setEnabled(propagation);
        }
        return () -> {
            Tasks.setTracing(tracingBefore);
            ContextPropagation.setEnabled(propagationBefore);
        };
    }

    @Override
    public String toString() {
        return param;
    }
}
