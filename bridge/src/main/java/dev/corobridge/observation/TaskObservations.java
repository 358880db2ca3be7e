package dev.corobridge.observation;

import dev.corobridge.bridge.internal.StepObserver;
import dev.corobridge.bridge.internal.StepObservers;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.util.Objects;

/**
 * One Micrometer {@link Observation} per task that runs work, so that Micrometer Tracing (Brave or
 * the OpenTelemetry bridge) shows each task as a span of the request that started it, with its hops
 * as events and its outcome:
 * <ul>
 *   <li><b>which tasks:</b> a {@code Task.start}/{@code startVirtual} body, each stage of a chain that
 *       runs ({@code thenOn}, {@code thenComposeOn}, {@code recoverOn}; a stage skipped by a failure
 *       is not observed), and every coroutine-backed task ({@code Task.startSuspend},
 *       {@code scope.task {}}, {@code TaskScope.fork}); not the tasks of values, futures, Deferreds
 *       or combinators, which run nothing of their own. A coroutine-backed task's observation
 *       begins where the task is created, so that every resume of its coroutine has it current:
 *       for one started {@code CoroutineStart.LAZY} that is before its work begins, and it ends
 *       with the task (cancelled, if it never starts and its scope is cancelled);</li>
 *   <li><b>name</b> {@value #NAME}, contextual name the step's label (its {@code HopNote}, else the
 *       task's name); low-cardinality key values {@value #CONTEXT_KEY} (the context it began on: a
 *       pump's or ring's name, {@code Dispatchers.Default} ...) and {@value #OUTCOME_KEY}
 *       ({@code success}, {@code failure}, {@code cancelled}); a failure is the observation's error;</li>
 *   <li><b>hops</b> are events named {@value #HOP_EVENT} whose contextual name reads
 *       {@code "<context> (<note>) @ <thread>"}: one for a Java stage, one per hop of a coroutine;</li>
 *   <li><b>parent</b>: the observation current when the work begins, which is the one current
 *       where the task was created, because tasks carry it
 *       ({@link dev.corobridge.context.ContextPropagation}); while the work runs, its observation
 *       is current, so tasks started from it are its children and log lines carry its span. A
 *       chain started where no observation was current is one trace all the same: its first
 *       observed stage is the root, and the later stages ({@code thenOn} ...) are its children,
 *       whatever context they run on.</li>
 * </ul>
 *
 * <pre>{@code
 * AutoCloseable observing = TaskObservations.install(observationRegistry); // every task of the JVM
 * ...
 * observing.close(); // tasks created afterwards are not observed
 * }</pre>
 *
 * <p><b>Which registry.</b> {@link #install} observes every task of the JVM, for a program that
 * owns it. {@link #installScoped} observes only the tasks of the registry's own traces: a task
 * whose work begins while an observation of that registry is current (one it carries from where
 * it was created, or one of this registry's task observations), and the later stages of a chain
 * whose first stage it observed. That is what an application context uses (the Spring Boot
 * starter does, for the context's life), so that two contexts in one JVM — a cached test context
 * next to another — each see their own tasks, and none sees them once it closed. Several
 * installations may be live: a step goes to the most recent scoped one that claims it, else to
 * the most recent JVM-wide one.
 *
 * <p><b>Cost.</b> Nothing when not installed (one volatile read per step) or when the registry is a
 * no-op one; otherwise one observation per step, as the registry's handlers make it.
 *
 * <p><b>Failures.</b> An observation handler that throws never fails a task: the failure is
 * reported to {@code Tasks.uncaughtFailureHandler()}, the task's observation still stops when the
 * task ends, and no scope of it is left current on a thread.
 *
 * <p><b>Thread-safety.</b> Safe from any thread; installing and closing are serialised.
 * Needs {@code io.micrometer:micrometer-observation} on the class path (an optional dependency).
 */
public final class TaskObservations {

    /** The observations' name. */
    public static final String NAME = "corobridge.task";
    /** Key of the context a task's work began on. */
    public static final String CONTEXT_KEY = "corobridge.context";
    /** Key of the outcome: {@code success}, {@code failure} or {@code cancelled}. */
    public static final String OUTCOME_KEY = "outcome";
    /** Name of the hop events. */
    public static final String HOP_EVENT = "corobridge.hop";

    private TaskObservations() {
    }

    /**
     * Observes every task of the JVM that begins work from now on with {@code registry}, until the
     * returned handle is closed. A later JVM-wide installation takes precedence while it is live.
     */
    public static AutoCloseable install(ObservationRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        Observer observer = new Observer(registry, null);
        // After the scoped ones, before the JVM-wide ones installed earlier.
        StepObservers.add(observer, StepObservers.count(o -> o instanceof Observer x && x.scope() != null));
        return () -> StepObservers.remove(observer);
    }

    /**
     * Observes, with {@code registry}, only the tasks of that registry's traces (see the class
     * comment, "Which registry") that begin work from now on, until the returned handle is closed;
     * then those tasks are observed no more, and other installations are unaffected.
     */
    public static AutoCloseable installScoped(ObservationRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        Scope scope = new Scope();
        registry.observationConfig().observationHandler(scope); // marks the registry's observations
        Observer observer = new Observer(registry, scope);
        StepObservers.add(observer, 0);
        return () -> {
            scope.closed = true; // a registry keeps its handlers: this one stops marking
            StepObservers.remove(observer);
        };
    }

    /** Whether tasks are observed now (by any installation). */
    public static boolean isInstalled() {
        return StepObservers.get() != null;
    }

    /**
     * A scoped installation's mark: put into the context of every observation its registry starts
     * while it is installed, so that a step can tell whether the current observation is of its
     * traces. The mark is the handler itself, a key nobody else has.
     */
    private static final class Scope implements ObservationHandler<Observation.Context> {
        volatile boolean closed;

        @Override
        public void onStart(Observation.Context context) {
            if (!closed) {
                context.put(this, Boolean.TRUE);
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        boolean marked(Observation observation) {
            return observation.getContext().containsKey(this);
        }
    }

    /** Makes observations in {@code registry}: of every step, or ({@code scope} set) of its own traces' steps. */
    private record Observer(ObservationRegistry registry, Scope scope) implements StepObserver {
        @Override
        public Step begin(String task, String context, String note, Step chain) {
            if (registry.isNoop()) {
                return null;
            }
            Observation current = registry.getCurrentObservation();
            ObservedStep first = chain instanceof ObservedStep s && s.observer() == this ? s : null;
            if (scope != null && (current != null ? !scope.marked(current) : first == null)) {
                return null; // not a task of this registry's traces
            }
            Observation o = Observation.createNotStarted(NAME, registry);
            if (current == null && first != null) {
                o.parentObservation(first.observation()); // the chain's trace, not a new root per stage
            }
            o.contextualName(note)
                    .lowCardinalityKeyValue(CONTEXT_KEY, context)
                    .highCardinalityKeyValue("corobridge.task.name", task);
            try {
                o.start();
            } catch (RuntimeException | Error e) {
                // The handlers before the one that threw saw it start (a long-task timer's sample,
                // a span): they see it stop now, and the work runs unobserved.
                try {
                    o.stop();
                } catch (RuntimeException | Error stopping) {
                    e.addSuppressed(stopping);
                }
                throw e;
            }
            return new ObservedStep(o, registry, this);
        }
    }

    /**
     * One task's observation. Its scope never stays on a thread because a handler threw: Micrometer
     * makes a scope current before it tells the handlers it opened, and takes it away only after it
     * told them it closed, so both are undone here when a handler throws.
     */
    private record ObservedStep(Observation observation, ObservationRegistry registry, Observer observer)
            implements StepObserver.Step {
        @Override
        public AutoCloseable open() {
            Observation.Scope before = registry.getCurrentObservationScope();
            Observation.Scope scope;
            try {
                scope = observation.openScope();
            } catch (RuntimeException | Error e) {
                Observation.Scope opened = registry.getCurrentObservationScope();
                if (opened != before && opened != null) {
                    try {
                        close(opened, before);
                    } catch (RuntimeException | Error closing) {
                        e.addSuppressed(closing);
                    }
                }
                throw e;
            }
            return () -> close(scope, scope.getPreviousObservationScope());
        }

        /** Closes {@code scope}; whatever its handlers throw, {@code previous} is current afterwards. */
        private void close(Observation.Scope scope, Observation.Scope previous) {
            try {
                scope.close();
            } finally {
                if (registry.getCurrentObservationScope() == scope) {
                    registry.setCurrentObservationScope(previous);
                }
            }
        }

        @Override
        public void hop(String context, String note, String thread) {
            observation.event(Observation.Event.of(HOP_EVENT, context + " (" + note + ") @ " + thread));
        }

        @Override
        public void end(Throwable error, boolean cancelled) {
            String outcome = cancelled ? "cancelled" : error != null ? "failure" : "success";
            observation.lowCardinalityKeyValue(KeyValue.of(OUTCOME_KEY, outcome));
            try {
                if (error != null && !cancelled) {
                    observation.error(error);
                }
            } finally {
                observation.stop(); // also when a handler's onError threw: the observation ends with the task
            }
        }
    }
}
