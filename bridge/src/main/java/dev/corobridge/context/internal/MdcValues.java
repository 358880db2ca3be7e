package dev.corobridge.context.internal;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Map;
import org.slf4j.MDC;
import org.slf4j.spi.MDCAdapter;

/**
 * SLF4J's MDC for {@code dev.corobridge.context}: capture, install, reinstate. Only touched when
 * {@link #PRESENT} (slf4j-api on the class path), so the library runs without SLF4J.
 *
 * <p>The MDC is carried whole, as a map that nothing changes afterwards ({@code null} when empty),
 * installed with {@code MDC.setContextMap} (which copies it into the worker thread's own map), and
 * the thread's previous map put back afterwards. Reading it is where the cost was: SLF4J's
 * {@code getCopyOfContextMap} copies the map at every call, and Logback's builds a read-only copy
 * first, so two maps per capture. With Logback the read-only snapshot itself is taken
 * ({@code LogbackMDCAdapter.getPropertyMap()}: Logback builds it once after each change of the
 * thread's MDC and replaces it, never changes it, on the next change), so a capture on a thread
 * whose MDC did not change since the last read allocates nothing. Other adapters are copied.
 *
 * <p>Installing with Logback copies nothing either, when its two per-thread maps can be reached
 * (Logback on the class path, as usual, rather than a named module that does not open them): the
 * captured snapshot becomes the thread's read-only map as it is, and the writable map an
 * {@link MdcOverlay} of it, which copies only if the step changes its MDC. Logback's own methods
 * then behave as after {@code setContextMap} (its {@code get} reads the writable map, its
 * {@code put} changes it and drops the read-only one, its events take the read-only one). Without
 * that access, {@code MDC.setContextMap} is used. Not public API.
 */
public final class MdcValues {

    /** Whether slf4j-api is on the class path. */
    public static final boolean PRESENT = OptionalClasses.present("org.slf4j.MDC", MdcValues.class);

    private MdcValues() {
    }

    /** The current thread's MDC as a map nothing changes afterwards, or null when empty. */
    public static Object capture() {
        Map<String, String> m = snapshot();
        return m == null || m.isEmpty() ? null : m;
    }

    /**
     * Sets the thread's MDC to {@code captured} (empty for null); returns the previous map (null
     * when it was empty).
     */
    public static Object install(Object captured) {
        if (captured != null && installed() == captured) {
            return captured; // the thread has exactly this map already (a nested step of the same context)
        }
        Map<String, String> previous = snapshot();
        reinstate(captured);
        return previous == null || previous.isEmpty() ? null : previous;
    }

    /** Puts back what {@link #install} returned. */
    @SuppressWarnings("unchecked")
    public static void reinstate(Object previous) {
        if (previous == null) {
            MDC.clear();
            return;
        }
        Map<String, String> map = (Map<String, String>) previous;
        if (installed() == map) {
            return; // unchanged since it was installed: nothing to put back
        }
        MDCAdapter adapter = MDC.getMDCAdapter();
        if (adapter != null && adapter.getClass() == Logback.ADAPTER && Logback.READ_WRITE != null) {
            try {
                // The order of Logback's setContextMap: the writable map, then the read-only one.
                ((ThreadLocal<Object>) Logback.READ_WRITE.invokeExact((Object) adapter)).set(new MdcOverlay(map));
                ((ThreadLocal<Object>) Logback.READ_ONLY.invokeExact((Object) adapter)).set(map);
                return;
            } catch (Throwable e) {
                throw new IllegalStateException("setting LogbackMDCAdapter's maps failed", e);
            }
        }
        MDC.setContextMap(map);
    }

    /**
     * Logback's read-only map of this thread as it is, without building one (null when there is
     * none, or without access to Logback's maps). Logback drops it at every change of the thread's
     * MDC, so while it is a given map, the thread's MDC is exactly that map.
     */
    @SuppressWarnings("unchecked")
    private static Object installed() {
        if (Logback.READ_ONLY == null) {
            return null;
        }
        MDCAdapter adapter = MDC.getMDCAdapter();
        if (adapter == null || adapter.getClass() != Logback.ADAPTER) {
            return null;
        }
        try {
            return ((ThreadLocal<Object>) Logback.READ_ONLY.invokeExact((Object) adapter)).get();
        } catch (Throwable e) {
            throw new IllegalStateException("reading LogbackMDCAdapter's read-only map failed", e);
        }
    }

    /** The thread's MDC as a map that is not changed afterwards: Logback's snapshot, else a copy. */
    @SuppressWarnings("unchecked")
    private static Map<String, String> snapshot() {
        MDCAdapter adapter = MDC.getMDCAdapter();
        if (adapter != null && adapter.getClass() == Logback.ADAPTER) {
            try {
                return (Map<String, String>) Logback.PROPERTY_MAP.invokeExact((Object) adapter);
            } catch (Throwable e) {
                throw new IllegalStateException("LogbackMDCAdapter.getPropertyMap failed", e);
            }
        }
        return MDC.getCopyOfContextMap();
    }

    /**
     * Logback's adapter, its snapshot accessor and the getters of its two per-thread maps
     * ({@code readWriteThreadLocalMap}, {@code readOnlyThreadLocalMap}); nulls for what cannot be
     * had (another logging backend, another Logback, no access to its package).
     */
    private static final class Logback {
        static final Class<?> ADAPTER;
        static final MethodHandle PROPERTY_MAP;
        static final MethodHandle READ_WRITE;
        static final MethodHandle READ_ONLY;

        static {
            Class<?> adapter = null;
            MethodHandle propertyMap = null;
            try {
                adapter = Class.forName("ch.qos.logback.classic.util.LogbackMDCAdapter", false, MdcValues.class.getClassLoader());
                propertyMap = MethodHandles.publicLookup()
                        .findVirtual(adapter, "getPropertyMap", MethodType.methodType(Map.class))
                        .asType(MethodType.methodType(Map.class, Object.class));
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                adapter = null; // another logging backend, or a Logback without it: copy instead
                propertyMap = null;
            }
            MethodHandle readWrite = null;
            MethodHandle readOnly = null;
            if (adapter != null) {
                try {
                    MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(adapter, MethodHandles.lookup());
                    MethodType getter = MethodType.methodType(ThreadLocal.class, Object.class);
                    readWrite = lookup.findGetter(adapter, "readWriteThreadLocalMap", ThreadLocal.class).asType(getter);
                    readOnly = lookup.findGetter(adapter, "readOnlyThreadLocalMap", ThreadLocal.class).asType(getter);
                } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                    readWrite = null; // a named module that does not open it, or other fields: setContextMap
                    readOnly = null;
                }
            }
            ADAPTER = adapter;
            PROPERTY_MAP = propertyMap;
            READ_WRITE = readOnly != null ? readWrite : null;
            READ_ONLY = readOnly;
        }
    }
}
