package dev.corobridge.context.internal;

import io.micrometer.context.ContextAccessor;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ThreadLocalAccessor;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Micrometer's {@code ContextRegistry} for {@code dev.corobridge.context}: the thread-locals
 * registered there (by Reactor, Micrometer Observation, Spring, the user) captured and set around a
 * piece of work. Only touched when {@link #PRESENT} (context-propagation on the class path), so the
 * library runs without it. Not public API.
 *
 * <p><b>Algorithm.</b> A capture is the registry's accessors at that moment and their values, in two
 * arrays ({@link Captured}). Installing it walks the accessors in order: it keeps each one's current
 * value, then sets the captured one ({@code setValue(v)}), or clears the thread-local when nothing
 * was captured for it ({@code setValue()}; "clear missing": the work sees what the capturing thread
 * saw); closing walks them in reverse and puts the kept values back ({@code restore(previous)} /
 * {@code restore()}). An accessor for which neither the capture nor the thread had a value is not
 * set; when closing finds that the work left it a value, it is cleared ({@code restore()}), so no
 * value the work set outlives it — the outcome of Micrometer's own {@code ContextSnapshot} with
 * clear-missing, without its maps (one array per install, none on a thread that had no value
 * for any of them), and without calling an accessor nobody
 * had a value for: some keep a stack of scopes per thread (Micrometer Tracing's span accessor
 * re-scopes the thread's current frame on {@code setValue()} and pops it on {@code restore()},
 * whoever pushed it), which a nested restore must leave to the enclosing one. Nor is an accessor
 * set whose thread-local already holds the captured value itself (a restore on the thread that
 * captured, or inside a step of the same context): no second observation scope is opened for the
 * observation already in scope; closing puts the value back only if the work changed it. The global registry
 * is read at each capture, so accessors registered later take part in later captures.
 *
 * <p><b>Failures.</b> An accessor that throws never leaves the others behind. When a
 * {@code setValue} throws, the install puts back what it had already set — and the failing
 * accessor itself if its value changed before it threw (Micrometer's observation scope is current
 * before its handlers are told) — and rethrows. Putting back restores every accessor whatever one
 * throws (an {@code AssertionError} of Micrometer's observation accessor under {@code -ea}
 * included), then throws the first failure with the later ones suppressed.
 */
public final class RegistryValues {

    /** Whether context-propagation is on the class path. */
    public static final boolean PRESENT = OptionalClasses.present("io.micrometer.context.ContextRegistry", RegistryValues.class);

    private RegistryValues() {
    }

    /**
     * In the array of previous values: the thread already had the captured value (the same
     * object), so the install did not set it and closing sets it only if the work changed it.
     */
    private static final Object UNCHANGED = new Object();

    /**
     * What {@link #install} returns when the thread had no value for any accessor (the usual case
     * of a worker thread): no array is made for it.
     */
    public static final Object NONE_BEFORE = new Object[0];

    /**
     * What {@link #install} returns when every accessor already had its captured value (a step
     * nested in one of an equal context, such as a pump running consecutive steps of one request
     * inside one restore): nothing was set, and putting back only undoes what the work changed.
     */
    public static final Object ALL_IN_PLACE = new Object[0];

    /** The registry's accessors and their values on the capturing thread; immutable once made. */
    record Captured(ThreadLocalAccessor<?>[] accessors, Object[] values) {
    }

    /**
     * The current thread's registered thread-locals, or null when none is registered or none has a
     * value here (the common case outside a traced request: then nothing is allocated).
     */
    public static Object capture() {
        if (!anyValue()) {
            return null;
        }
        List<ThreadLocalAccessor<?>> registered = ContextRegistry.getInstance().getThreadLocalAccessors();
        ThreadLocalAccessor<?>[] accessors = registered.toArray(new ThreadLocalAccessor<?>[0]);
        Object[] values = new Object[accessors.length];
        for (int i = 0; i < accessors.length; i++) {
            values[i] = accessors[i].getValue();
        }
        return new Captured(accessors, values);
    }

    /** Whether any registered thread-local has a value on the current thread. */
    public static boolean anyValue() {
        List<ThreadLocalAccessor<?>> registered = ContextRegistry.getInstance().getThreadLocalAccessors();
        for (int i = 0, n = registered.size(); i < n; i++) { // by index: no iterator per capture
            if (registered.get(i).getValue() != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a {@link #capture()} (or {@link #captureNone()}) here would give what {@code captured}
     * holds: the same accessors registered, in the same order, each with the same value (the same
     * object) on this thread. {@code captured} null: whether none is registered.
     */
    public static boolean matches(Object captured) {
        List<ThreadLocalAccessor<?>> registered = ContextRegistry.getInstance().getThreadLocalAccessors();
        if (captured == null) {
            return registered.isEmpty();
        }
        Captured c = (Captured) captured;
        ThreadLocalAccessor<?>[] accessors = c.accessors();
        Object[] values = c.values();
        if (registered.size() != accessors.length) {
            return false;
        }
        for (int i = 0; i < accessors.length; i++) {
            if (registered.get(i) != accessors[i] || accessors[i].getValue() != values[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * The values that {@code context} (a Reactor {@code Context}, or another context type known to
     * the registry's context accessors) holds for the registered thread-locals, as a capture for
     * {@link #install}: only the accessors with a value there, so installing it leaves every other
     * thread-local as the thread has it (what Micrometer's {@code setThreadLocalsFrom} does, with
     * this class's failure handling). Null when {@code context} holds none of them.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static Object readFrom(Object context) {
        List<ThreadLocalAccessor<?>> registered = ContextRegistry.getInstance().getThreadLocalAccessors();
        ContextAccessor reader = ContextRegistry.getInstance().getContextAccessorForRead(context);
        ThreadLocalAccessor<?>[] accessors = null;
        Object[] values = null;
        int found = 0;
        for (int i = 0, n = registered.size(); i < n; i++) { // by index: no iterator per read
            ThreadLocalAccessor<?> accessor = registered.get(i);
            Object value = reader.readValue(context, accessor.key());
            if (value != null) {
                if (accessors == null) {
                    accessors = new ThreadLocalAccessor<?>[n - i];
                    values = new Object[n - i];
                }
                accessors[found] = accessor;
                values[found++] = value;
            }
        }
        if (found == 0) {
            return null;
        }
        return found == accessors.length ? new Captured(accessors, values)
                : new Captured(Arrays.copyOf(accessors, found), Arrays.copyOf(values, found));
    }

    /**
     * A capture of no value for every registered thread-local (null when none is registered): what a
     * context that carries an MDC but no registry value installs, so its steps see none either.
     */
    public static Object captureNone() {
        ThreadLocalAccessor<?>[] accessors = ContextRegistry.getInstance().getThreadLocalAccessors()
                .toArray(new ThreadLocalAccessor<?>[0]);
        return accessors.length == 0 ? null : new Captured(accessors, new Object[accessors.length]);
    }

    /**
     * Sets the captured values on this thread; returns what {@link #reinstate} needs to put the
     * previous ones back. If an accessor throws, what was set is put back first (see the class
     * comment) and the exception is rethrown.
     */
    public static Object install(Object captured) {
        Captured c = (Captured) captured;
        ThreadLocalAccessor<?>[] accessors = c.accessors();
        Object[] values = c.values();
        if (allInPlace(accessors, values)) {
            return ALL_IN_PLACE;
        }
        Object[] previous = null; // made at the first accessor that had a value: a clean thread needs none
        int done = 0;
        try {
            for (; done < accessors.length; done++) {
                ThreadLocalAccessor<?> accessor = accessors[done];
                Object before = accessor.getValue();
                if (before != null) {
                    if (previous == null) {
                        previous = new Object[accessors.length];
                    }
                    if (before == values[done]) {
                        previous[done] = UNCHANGED; // already in place: no second scope of the same value
                        continue;
                    }
                    previous[done] = before;
                }
                try {
                    set(accessor, values[done], before);
                } catch (Throwable e) {
                    undoFailedSet(accessor, before, e);
                    throw e;
                }
            }
        } catch (Throwable e) {
            Throwable failure = reinstate(c, previous, done, e); // put back what was already set, then fail
            throw Failures.unchecked(failure);
        }
        return previous != null ? previous : NONE_BEFORE;
    }

    private static boolean allInPlace(ThreadLocalAccessor<?>[] accessors, Object[] values) {
        for (int i = 0; i < accessors.length; i++) {
            if (accessors[i].getValue() != values[i]) {
                return false; // on a clean thread: at the first captured value
            }
        }
        return true;
    }

    /** Whether two captures hold the same accessors with the same values (the same objects). */
    public static boolean sameValues(Object a, Object b) {
        if (a == b) {
            return true;
        }
        if (a == null || b == null) {
            return false;
        }
        Captured x = (Captured) a;
        Captured y = (Captured) b;
        if (x.accessors().length != y.accessors().length) {
            return false;
        }
        for (int i = 0; i < x.accessors().length; i++) {
            if (x.accessors()[i] != y.accessors()[i] || x.values()[i] != y.values()[i]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Puts back the values {@link #install} found, for every accessor; throws the first failure
     * (later ones suppressed) after all were tried.
     */
    public static void reinstate(Object captured, Object previous) {
        Captured c = (Captured) captured;
        Throwable failure = reinstate(c, (Object[]) previous, c.accessors().length, null);
        if (failure != null) {
            throw Failures.unchecked(failure);
        }
    }

    /** Restores accessors {@code count - 1} down to 0; returns {@code failure}, or the first one, with the others suppressed. */
    private static Throwable reinstate(Captured c, Object[] previous, int count, Throwable failure) {
        boolean none = previous == null || previous == NONE_BEFORE; // or a failed install that found nothing
        boolean inPlace = previous == ALL_IN_PLACE;
        for (int i = count - 1; i >= 0; i--) {
            try {
                restore(c.accessors()[i], c.values()[i], inPlace ? UNCHANGED : none ? null : previous[i]);
            } catch (Throwable e) {
                failure = Failures.first(failure, e); // the others are still put back
            }
        }
        return failure;
    }

    /** An accessor whose {@code setValue} threw after changing the thread: put its previous value back. */
    private static void undoFailedSet(ThreadLocalAccessor<?> accessor, Object before, Throwable failure) {
        try {
            if (accessor.getValue() != before) {
                restore(accessor, null, before);
            }
        } catch (Throwable e) {
            Failures.first(failure, e);
        }
    }

    @SuppressWarnings("unchecked")
    private static <V> void set(ThreadLocalAccessor<V> accessor, Object value, Object previous) {
        if (value != null) {
            accessor.setValue((V) value);
        } else if (previous != null) {
            accessor.setValue(); // captured nothing for it: the work sees none
        }
    }

    @SuppressWarnings("unchecked")
    private static <V> void restore(ThreadLocalAccessor<V> accessor, Object value, Object previous) {
        if (previous == UNCHANGED) {
            if (accessor.getValue() != value) { // the work left another value: the thread's own one back
                if (value != null) {
                    accessor.restore((V) value);
                } else {
                    accessor.restore(); // it had none (ALL_IN_PLACE of a value not captured)
                }
            }
        } else if (previous != null) {
            accessor.restore((V) previous);
        } else if (value != null || accessor.getValue() != null) {
            accessor.restore(); // the thread had none: neither the captured value nor one the work set stays
        }
    }

    /** Writes the captured values into {@code context} (e.g. a Reactor {@code Context}) through the registry's accessor for it. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static <C> C writeTo(Object captured, C context) {
        Captured c = (Captured) captured;
        Map<Object, Object> values = new HashMap<>();
        for (int i = 0; i < c.accessors().length; i++) {
            if (c.values()[i] != null) {
                values.put(c.accessors()[i].key(), c.values()[i]);
            }
        }
        if (values.isEmpty()) {
            return context;
        }
        ContextAccessor accessor = ContextRegistry.getInstance().getContextAccessorForWrite(context);
        return (C) accessor.writeValues(values, context);
    }
}
