package dev.corobridge.bridge;

import java.util.List;

/**
 * A bounded, append-only log of the {@link Hop}s one piece of asynchronous work made between
 * execution contexts: the JVM version of a "tid log" that shows where each step ran.
 *
 * <p><b>Thread-safety.</b> Safe for concurrent use. A hop appended by one thread
 * <i>happens-before</i> every later {@link #getHops()} call that returns it, so a trace handed from a
 * background thread to the pump can be read there without further synchronisation.
 *
 * <p><b>Bounds.</b> At most {@link #getCapacity()} hops are kept: the first hop and the most recent
 * ones, so a long-running loop cannot grow a trace without limit; {@link #getDropped()} says how many
 * were left out. Recording takes a short critical section.
 *
 * <p><b>Cost.</b> Every traced task has a trace, and most traces never hold more than the task's
 * own hop, so that hop costs no allocation: {@link Task} records it with {@link #note}, which keeps
 * its parts (context, note, thread name and id, wall-clock time as seconds and nanos) in fields of
 * the trace, and the {@link Hop} is built only when the trace is read. Later hops are kept the same
 * way in slots of a ring allocated at the second hop with room for two and doubled up to
 * {@link #getCapacity()} when a chain grows longer; once the ring is full its oldest slot is reused,
 * so a long-running coroutine's hops allocate nothing.
 */
public final class HopTrace {

    /** Default number of hops kept. */
    public static final int DEFAULT_CAPACITY = 32;

    private static final int INITIAL_ROOM = 2;

    private final int capacity;
    /** How many hops are kept: the first, and {@code count} in the ring. */
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
    /**
     * The hops after the first, a ring of at most {@code capacity - 1} slots, oldest at {@code head};
     * {@code null} until the second hop. Slots are reused once the ring is full, so a long-running
     * coroutine's hops stop allocating.
     */
    private Slot[] ring;
    private int head;

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
     * {@link #record} without returning the hop: its parts are kept (in fields for the first hop, in
     * a reusable slot for the others) and the {@link Hop} is built only when the trace is read.
     */
    void note(String context, String note) {
        java.util.Objects.requireNonNull(context, "context");
        Thread t = Thread.currentThread();
        java.time.Instant now = java.time.Instant.now(); // only its two numbers are kept: the JIT can drop the object
        long seconds = now.getEpochSecond();
        int nanos = now.getNano();
        String n = note == null ? "" : note;
        synchronized (this) {
            if (size == 0) {
                firstContext = context;
                firstNote = n;
                firstThread = t.getName();
                firstThreadId = t.threadId();
                firstVirtual = t.isVirtual();
                firstSeconds = seconds;
                firstNanos = nanos;
                size = 1;
                return;
            }
            Slot slot = nextSlot();
            slot.built = null;
            slot.context = context;
            slot.note = n;
            slot.thread = t.getName();
            slot.threadId = t.threadId();
            slot.virtual = t.isVirtual();
            slot.seconds = seconds;
            slot.nanos = nanos;
        }
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
            nextSlot().built = hop;
        }
    }

    /**
     * The slot for the next hop after the first (caller holds the lock): a new one while the ring
     * has room, else the oldest, whose hop is dropped.
     */
    private Slot nextSlot() {
        int n = size - 1; // hops in the ring
        if (ring == null) {
            ring = new Slot[Math.min(capacity - 1, INITIAL_ROOM)];
        } else if (n == capacity - 1) {
            Slot oldest = ring[head]; // full: reuse the oldest after the first
            head = (head + 1) % ring.length;
            dropped++;
            return oldest;
        } else if (n == ring.length) {
            Slot[] grown = new Slot[Math.min(capacity - 1, n * 2)];
            for (int i = 0; i < n; i++) {
                grown[i] = ring[(head + i) % ring.length];
            }
            ring = grown;
            head = 0;
        }
        Slot slot = new Slot();
        ring[(head + n) % ring.length] = slot;
        size++;
        return slot;
    }

    /** A snapshot of the hops kept, oldest first. */
    public synchronized List<Hop> getHops() {
        if (size == 0) {
            return List.of();
        }
        Hop[] all = new Hop[size];
        all[0] = first();
        for (int i = 1; i < size; i++) {
            all[i] = ring[(head + i - 1) % ring.length].hop();
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

    /** A hop after the first: a {@link Hop} given to {@link #add}, or the parts {@link #note} wrote (guarded by the trace's lock). */
    private static final class Slot {
        Hop built;
        String context;
        String note;
        String thread;
        long threadId;
        boolean virtual;
        long seconds;
        int nanos;

        Hop hop() {
            if (built == null) {
                built = new Hop(context, thread, threadId, virtual, java.time.Instant.ofEpochSecond(seconds, nanos), note);
            }
            return built;
        }
    }

    /** How many hops were left out because the trace was full. */
    public synchronized long getDropped() {
        return dropped;
    }

    /** The most hops this trace keeps. */
    public int getCapacity() {
        return capacity;
    }

    /** One line per hop, numbered, as printed by the examples. */
    @Override
    public synchronized String toString() {
        StringBuilder sb = new StringBuilder();
        List<Hop> all = getHops();
        for (int i = 0; i < all.size(); i++) {
            if (i == 1 && dropped > 0) {
                sb.append("  ... ").append(dropped).append(" hops left out\n");
            }
            sb.append("  ").append(i + 1).append(". ").append(all.get(i)).append('\n');
        }
        return sb.toString();
    }
}
