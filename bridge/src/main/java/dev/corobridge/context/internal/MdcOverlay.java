package dev.corobridge.context.internal;

import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * A thread's writable MDC map that starts as a view of a captured map and copies it on the first
 * change: what {@link MdcValues} installs as Logback's per-thread map at a restore, instead of the
 * copy {@code MDC.setContextMap} makes. Most steps only read the MDC (a log line, a capture), so
 * most restores copy nothing. Not public API.
 *
 * <p><b>Algorithm.</b> Reads go to {@code base} until the first write ({@code put}, {@code remove},
 * {@code clear}, {@code putAll}, or asking for the entry set, through which a caller may remove),
 * which copies {@code base} into an own {@link HashMap}; from then on everything goes to the copy.
 * {@code base} is never changed: it is a capture that other threads may be reading.
 *
 * <p><b>Thread-safety.</b> Not thread-safe, like Logback's own map: confined to the thread whose MDC
 * it is. {@code base} must be immutable (a captured MDC is).
 */
final class MdcOverlay extends AbstractMap<String, String> {

    /** The captured map; never written. */
    private final Map<String, String> base;
    /** The own copy after the first write, else null. */
    private HashMap<String, String> own;

    MdcOverlay(Map<String, String> base) {
        this.base = base;
    }

    private Map<String, String> reading() {
        return own != null ? own : base;
    }

    private HashMap<String, String> writing() {
        HashMap<String, String> m = own;
        if (m == null) {
            m = new HashMap<>(base);
            own = m;
        }
        return m;
    }

    @Override
    public String get(Object key) {
        return reading().get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return reading().containsKey(key);
    }

    @Override
    public int size() {
        return reading().size();
    }

    @Override
    public boolean isEmpty() {
        return reading().isEmpty();
    }

    @Override
    public String put(String key, String value) {
        return writing().put(key, value);
    }

    @Override
    public String remove(Object key) {
        return writing().remove(key);
    }

    @Override
    public void putAll(Map<? extends String, ? extends String> m) {
        writing().putAll(m);
    }

    @Override
    public void clear() {
        writing().clear();
    }

    @Override
    public boolean equals(Object o) {
        return o == this || reading().equals(o);
    }

    @Override
    public int hashCode() {
        return reading().hashCode();
    }

    @Override
    public String toString() {
        return reading().toString();
    }

    /** The own copy's entries: the set supports removal, so asking for it counts as a write. */
    @Override
    public Set<Entry<String, String>> entrySet() {
        return writing().entrySet();
    }
}
