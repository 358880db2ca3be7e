package dev.corobridge.bridge.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>The installed {@link StepObserver}s: one volatile field, read once per step of work, that
 * holds null, the only observer, or one that asks each installed observer in turn until one
 * observes the step. Observers are asked in installation order chosen by the installer: one
 * added {@code first} is asked before those already installed (a scoped observer, which declines
 * the steps that are not its own, goes before one that observes every step).
 *
 * <p>Thread-safety: {@link #get} is a volatile read; installing and uninstalling are serialised.
 */
public final class StepObservers {

    private static volatile StepObserver installed;
    /** In asking order; guarded by the class's lock. */
    private static final List<StepObserver> ALL = new ArrayList<>();

    private StepObservers() {
    }

    /** The installed observer (one that asks several, when several are installed), or null. */
    public static StepObserver get() {
        return installed;
    }

    /** Installs {@code observer} at {@code position} in the asking order (0: asked first). */
    public static synchronized void add(StepObserver observer, int position) {
        ALL.add(Math.max(0, Math.min(position, ALL.size())), observer);
        publish();
    }

    /** How many installed observers satisfy {@code test}: for an installer that keeps groups in order. */
    public static synchronized int count(java.util.function.Predicate<StepObserver> test) {
        return (int) ALL.stream().filter(test).count();
    }

    /** Uninstalls {@code observer} if it is installed; the others stay. */
    public static synchronized void remove(StepObserver observer) {
        if (ALL.remove(observer)) {
            publish();
        }
    }

    private static void publish() {
        installed = switch (ALL.size()) {
            case 0 -> null;
            case 1 -> ALL.getFirst();
            default -> new FirstObserving(ALL.toArray(StepObserver[]::new));
        };
    }

    /** Asks each observer in turn; the first that observes the step has it. */
    private record FirstObserving(StepObserver[] observers) implements StepObserver {
        @Override
        public Step begin(String task, String context, String note, Step chain) {
            for (StepObserver o : observers) {
                Step step;
                try {
                    step = o.begin(task, context, note, chain);
                } catch (Throwable e) {
                    UncaughtFailures.report(null, e); // one observer's failure neither fails the task nor silences the others
                    continue;
                }
                if (step != null) {
                    return step;
                }
            }
            return null;
        }
    }
}
