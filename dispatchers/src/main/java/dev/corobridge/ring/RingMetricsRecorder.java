package dev.corobridge.ring;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/** Counters shared by a pool's rings: operations by kind, failures by errno, completions. Thread-safe. */
final class RingMetricsRecorder {

    private final ConcurrentHashMap<String, LongAdder> byKind = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final LongAdder completions = new LongAdder();

    void submitted(String kind) {
        byKind.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    void failed(String kind, int errno) {
        errors.computeIfAbsent(Errno.name(errno), k -> new LongAdder()).increment();
    }

    void completed() {
        completions.increment();
    }

    Map<String, Long> operations() {
        return snapshot(byKind);
    }

    Map<String, Long> errors() {
        return snapshot(errors);
    }

    long completions() {
        return completions.sum();
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> m) {
        Map<String, Long> out = new TreeMap<>();
        m.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }
}
