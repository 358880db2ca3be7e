package dev.corobridge.pump;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A pump's counters and its queue-latency histogram, and the {@link PumpMetrics} snapshot made of
 * them; also the <i>task sequence</i> that the {@link StallWatchdog} samples.
 *
 * <p><b>Algorithm.</b> The counts live in one {@code long[]}, one slot per counter, named by
 * {@link Counter} ({@code counters.count(PARKS)}). Single writer: every counter but the stalls is
 * written by the pump thread alone, as {@code slot = slot + 1} with a release store (a plain read
 * of its own last write, no atomic read-modify-write), so counting costs the loop a store per
 * event. The stalls are counted by the watchdog thread ({@link #stallReported()}), with an atomic
 * add. The task sequence is incremented when user code starts and again when it ends, so it is odd
 * exactly while user code runs; a nested loop ({@link NestedLoop}) makes it even again while it
 * dispatches.
 *
 * <p><b>Memory effects.</b> Reads are volatile: a reader sees every count up to some recent write,
 * never a torn or out-of-thin-air value. A {@linkplain #snapshot snapshot} reads the counters one by
 * one; it is not atomic across them (a concurrent event may be counted in one and not yet in
 * another).
 *
 * <p><b>Thread-safety.</b> {@link #count}, {@link #stepTaskSequence()} and {@link #recordLatency}
 * are for the pump thread only; {@link #stallReported()} for the watchdog; reads from any thread.
 */
final class PumpCounters {

    /** What the loop counts with {@link #count}; the ordinal is the slot. */
    enum Counter {
        /** A posted task, coroutine dispatch or completion has run. */
        DISPATCHES,
        /** Of the dispatches, an external completion. */
        COMPLETIONS_RUN,
        /** A timer has fired (not a dispatch). */
        TIMERS_FIRED,
        /** The pump thread went to sleep. */
        PARKS,
        /** An idle spin found work. */
        SPIN_HITS,
        /** A task, timer or completion threw. */
        FAILURES,
        /** The idle loop found its thread interrupted. */
        INTERRUPTS
    }

    /** The slots after the counters': the task sequence, and the stalls that the watchdog counts. */
    private static final int TASK_SEQ = Counter.values().length;
    private static final int STALLS = TASK_SEQ + 1;

    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

    /** Written through {@link #SLOT} only; read by its writer plainly, by others volatile. */
    private final long[] counts = new long[STALLS + 1];
    private final LatencyHistogram latency = new LatencyHistogram();

    // ------------------------------------------------------------------ pump thread

    /** Pump thread: one more of {@code counter}; returns the new count. */
    long count(Counter counter) {
        return increment(counter.ordinal());
    }

    /**
     * Steps the task sequence, flipping its parity: when user code starts (odd) and when it ends
     * (even); and when a nested loop starts inside a task (even: dispatching, not stalled) and ends
     * (odd again: the task resumes).
     */
    void stepTaskSequence() {
        increment(TASK_SEQ);
    }

    private long increment(int slot) {
        long n = counts[slot] + 1;
        SLOT.setRelease(counts, slot, n);
        return n;
    }

    /** A sampled post's enqueue-to-run latency. */
    void recordLatency(long nanos) {
        latency.record(nanos);
    }

    // ------------------------------------------------------------------ watchdog thread

    /** The watchdog reported a stall; returns how many it has reported. */
    long stallReported() {
        return (long) SLOT.getAndAdd(counts, STALLS, 1L) + 1;
    }

    // ------------------------------------------------------------------ any thread

    /** The task sequence: odd while user code runs on the pump thread. */
    long taskSequence() {
        return read(TASK_SEQ);
    }

    /** A snapshot of the counters, with the levels that only the pump knows. */
    PumpMetrics snapshot(String pumpName, String state, long queueDepth, long wakeups, int pendingTimers,
                         int liveChildren) {
        return new PumpMetrics(pumpName, state, queueDepth, read(Counter.DISPATCHES), read(Counter.COMPLETIONS_RUN),
                read(Counter.TIMERS_FIRED), wakeups, read(Counter.PARKS), read(Counter.SPIN_HITS), latency.max(),
                latency.percentile(0.99), latency.count(), read(STALLS), read(Counter.FAILURES),
                read(Counter.INTERRUPTS), pendingTimers, liveChildren);
    }

    private long read(Counter counter) {
        return read(counter.ordinal());
    }

    private long read(int slot) {
        return (long) SLOT.getVolatile(counts, slot);
    }
}
