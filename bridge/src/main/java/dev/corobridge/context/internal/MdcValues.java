package dev.corobridge.context.internal;

import java.util.Map;
import org.slf4j.MDC;

/**
 * SLF4J's MDC for {@code dev.corobridge.context}: capture, install, reinstate. Only touched when
 * {@link #PRESENT} (slf4j-api on the class path), so the library runs without SLF4J.
 *
 * <p>The MDC is carried whole, as a map: captured as a private copy ({@code null} when empty),
 * installed with {@code MDC.setContextMap} (which copies it into the thread's own map), and the
 * previous map (a copy, or {@code null}) put back afterwards. Not public API.
 */
public final class MdcValues {

    /** Whether slf4j-api is on the class path. */
    public static final boolean PRESENT = present();

    private MdcValues() {
    }

    /**
     * The current thread's MDC, or null when empty: a copy of the thread's map that nothing changes
     * afterwards (installing it copies it again, into the worker thread's own map).
     */
    public static Object capture() {
        Map<String, String> m = MDC.getCopyOfContextMap();
        return m == null || m.isEmpty() ? null : m;
    }

    /**
     * Sets the thread's MDC to {@code captured} (empty for null); returns the previous map (null
     * when it was empty).
     */
    public static Object install(Object captured) {
        Map<String, String> previous = MDC.getCopyOfContextMap();
        reinstate(captured);
        return previous == null || previous.isEmpty() ? null : previous;
    }

    /** Puts back what {@link #install} returned. */
    @SuppressWarnings("unchecked")
    public static void reinstate(Object previous) {
        if (previous == null) {
            MDC.clear();
        } else {
            MDC.setContextMap((Map<String, String>) previous);
        }
    }

    private static boolean present() {
        try {
            Class.forName("org.slf4j.MDC", false, MdcValues.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
