package dev.corobridge.bridge;

import java.util.Arrays;
import java.util.List;

/**
 * A bounded, append-only log of the {@link Hop}s one piece of asynchronous work made between
 * execution contexts: the JVM version of a "tid log" that shows where each step ran.
 *
 * <p><b>Thread-safety.</b> Safe for concurrent use. A hop appended by one thread
 * <i>happens-before</i> every later {@link #hops()} call that returns it, so a trace handed from a
 * background thread to the pump can be read there without further synchronisation.
 *
 * <p><b>Bounds.</b> At most {@link #capacity()} hops are kept: the first hop and the most recent
 * ones, so a long-running loop cannot grow a trace without limit; {@link #dropped()} says how many
 * were left out. Recording costs one small allocation and a short critical section.
 *
 * <p><b>Cost.</b> Every traced task has a trace, so it is kept small: the hops live in a plain
 * array allocated at the first hop with room for two (a task's own hop and one more stage) and
 * doubled up to {@link #capacity()} when a chain grows longer.
 */
public final class HopTrace {

    /** Default number of hops kept. */
    public static final int DEFAULT_CAPACITY = 32;

    private static final int INITIAL_ROOM = 2;

    private final int capacity;
    /** The hops kept, oldest first, in {@code hops[0..size)}; {@code null} until the first hop. */
    private Hop[] hops;
    private int size;
    private long dropped;

    /** A trace that keeps {@link #DEFAULT_CAPACITY} hops. */
    public HopTrace() {
        this(DEFAULT_CAPACITY);
    }

    /**
     * @param capacity how many hops to keep, at least 2 (the first and the latest)
     * @throws IllegalArgumentException if {@code capacity < 2}
     */
    public HopTrace(int capacity) {
        if (capacity < 2) {
            throw new IllegalArgumentException("HopTrace capacity must be at least 2, was " + capacity);
        }
        this.capacity = capacity;
    }

    /** Records that the calling thread, in {@code context}, is doing {@code note}; returns the hop. */
    public Hop record(String context, String note) {
        Hop hop = Hop.here(context, note);
        add(hop);
        return hop;
    }

    /** Appends a hop, dropping the oldest hop after the first when the trace is full. */
    public void add(Hop hop) {
        java.util.Objects.requireNonNull(hop, "hop");
        synchronized (this) {
            if (hops == null) {
                hops = new Hop[Math.min(capacity, INITIAL_ROOM)];
            } else if (size == capacity) {
                System.arraycopy(hops, 2, hops, 1, size - 2); // drop the oldest after the first
                size--;
                dropped++;
            } else if (size == hops.length) {
                hops = Arrays.copyOf(hops, Math.min(capacity, size * 2));
            }
            hops[size++] = hop;
        }
    }

    /** A snapshot of the hops kept, oldest first. */
    public synchronized List<Hop> hops() {
        return size == 0 ? List.of() : List.of(Arrays.copyOf(hops, size));
    }

    /** How many hops were left out because the trace was full. */
    public synchronized long dropped() {
        return dropped;
    }

    /** The most hops this trace keeps. */
    public int capacity() {
        return capacity;
    }

    /** One line per hop, numbered, as printed by the examples. */
    @Override
    public synchronized String toString() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < size; i++) {
            if (i == 1 && dropped > 0) {
                sb.append("  ... ").append(dropped).append(" hops left out\n");
            }
            sb.append("  ").append(i + 1).append(". ").append(hops[i]).append('\n');
        }
        return sb.toString();
    }
}
