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
 * were left out. Recording takes a short critical section.
 *
 * <p><b>Cost.</b> Every traced task has a trace, and most traces never hold more than the task's
 * own hop, so that hop costs no allocation: {@link Task} records it with {@link #note}, which keeps
 * its parts (context, note, thread name and id, wall-clock time as seconds and nanos) in fields of
 * the trace, and the {@link Hop} is built only when the trace is read. Later hops live in a plain
 * array allocated at the second hop with room for two and doubled up to {@link #capacity()} when a
 * chain grows longer.
 */
public final class HopTrace {

    /** Default number of hops kept. */
    public static final int DEFAULT_CAPACITY = 32;

    private static final int INITIAL_ROOM = 2;

    private final int capacity;
    /** How many hops are kept: the first, and {@code rest[0..size-1)}. */
    private int size;
    private long dropped;
    /** The first hop once built (by {@link #add}, or from the raw fields when read). */
    private Hop first;
    // The first hop's parts when it was recorded by note(), until it is built.
    private String firstContext;
    private String firstNote;
    private String firstThread;
    private long firstThreadId;
    private boolean firstVirtual;
    private long firstSeconds;
    private int firstNanos;
    /** The hops after the first, oldest first, in {@code rest[0..size-1)}; {@code null} until the second. */
    private Hop[] rest;

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

    /**
     * {@link #record} without returning the hop: the first hop of a trace is then kept as its parts
     * and costs no allocation (the usual case: a task's one hop).
     */
    void note(String context, String note) {
        java.util.Objects.requireNonNull(context, "context");
        Thread t = Thread.currentThread();
        java.time.Instant now = java.time.Instant.now(); // only its two numbers are kept: the JIT can drop the object
        long seconds = now.getEpochSecond();
        int nanos = now.getNano();
        synchronized (this) {
            if (size == 0) {
                firstContext = context;
                firstNote = note == null ? "" : note;
                firstThread = t.getName();
                firstThreadId = t.threadId();
                firstVirtual = t.isVirtual();
                firstSeconds = seconds;
                firstNanos = nanos;
                size = 1;
                return;
            }
        }
        add(new Hop(context, t.getName(), t.threadId(), t.isVirtual(), java.time.Instant.ofEpochSecond(seconds, nanos), note));
    }

    /** Appends a hop, dropping the oldest hop after the first when the trace is full. */
    private void add(Hop hop) {
        java.util.Objects.requireNonNull(hop, "hop");
        synchronized (this) {
            if (size == 0) {
                first = hop;
                size = 1;
                return;
            }
            int n = size - 1; // hops in rest
            if (rest == null) {
                rest = new Hop[Math.min(capacity - 1, INITIAL_ROOM)];
            } else if (size == capacity) {
                System.arraycopy(rest, 1, rest, 0, n - 1); // drop the oldest after the first
                n--;
                size--;
                dropped++;
            } else if (n == rest.length) {
                rest = Arrays.copyOf(rest, Math.min(capacity - 1, n * 2));
            }
            rest[n] = hop;
            size++;
        }
    }

    /** A snapshot of the hops kept, oldest first. */
    public synchronized List<Hop> hops() {
        if (size == 0) {
            return List.of();
        }
        Hop[] all = new Hop[size];
        all[0] = first();
        if (size > 1) {
            System.arraycopy(rest, 0, all, 1, size - 1);
        }
        return List.of(all);
    }

    /** The first hop, built from its parts if {@link #note} recorded it; caller holds the lock. */
    private Hop first() {
        if (first == null) {
            first = new Hop(firstContext, firstThread, firstThreadId, firstVirtual,
                    java.time.Instant.ofEpochSecond(firstSeconds, firstNanos), firstNote);
            firstContext = null;
            firstNote = null;
            firstThread = null;
        }
        return first;
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
        List<Hop> all = hops();
        for (int i = 0; i < all.size(); i++) {
            if (i == 1 && dropped > 0) {
                sb.append("  ... ").append(dropped).append(" hops left out\n");
            }
            sb.append("  ").append(i + 1).append(". ").append(all.get(i)).append('\n');
        }
        return sb.toString();
    }
}
