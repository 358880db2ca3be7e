package dev.corobridge.pump;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A pump's counters and its queue-latency histogram, and the {@link PumpMetrics} snapshot made of
 * them; also the <i>task sequence</i> that the {@link StallWatchdog} samples.
 *
 * <p><b>Algorithm.</b> Single writer: every counter but {@code stalls} is written by the pump thread
 * alone, as {@code counter = counter + 1} with a release store (a plain read of its own last write,
 * no atomic read-modify-write), so counting costs the loop a store per event. All counters live in
 * this one object: the loop reaches each with one load of this object plus the field, as it did
 * with one {@code AtomicLong} per counter. {@code stalls} is counted by the watchdog thread
 * ({@link #stallReported()}), with an atomic add. The task sequence is incremented when user code
 * starts and again when it ends, so it is odd exactly while user code runs; a nested loop
 * ({@link NestedLoop}) makes it even again while it dispatches.
 *
 * <p><b>Memory effects.</b> Reads are volatile: a reader sees every count up to some recent write,
 * never a torn or out-of-thin-air value. A {@linkplain #snapshot snapshot} reads the counters one by
 * one; it is not atomic across them (a concurrent event may be counted in one and not yet in
 * another).
 *
 * <p><b>Thread-safety.</b> The {@code on...}/{@code task...}/{@code timer...} methods and
 * {@link #recordLatency} are for the pump thread only; {@link #stallReported()} for the watchdog;
 * reads from any thread.
 */
final class PumpCounters {

    private static final VarHandle TASK_SEQ;
    private static final VarHandle DISPATCHES;
    private static final VarHandle COMPLETIONS_RUN;
    private static final VarHandle TIMERS_FIRED;
    private static final VarHandle PARKS;
    private static final VarHandle SPIN_HITS;
    private static final VarHandle FAILURES;
    private static final VarHandle INTERRUPTS;
    private static final VarHandle STALLS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TASK_SEQ = l.findVarHandle(PumpCounters.class, "taskSeq", long.class);
            DISPATCHES = l.findVarHandle(PumpCounters.class, "dispatches", long.class);
            COMPLETIONS_RUN = l.findVarHandle(PumpCounters.class, "completionsRun", long.class);
            TIMERS_FIRED = l.findVarHandle(PumpCounters.class, "timersFired", long.class);
            PARKS = l.findVarHandle(PumpCounters.class, "parks", long.class);
            SPIN_HITS = l.findVarHandle(PumpCounters.class, "spinHits", long.class);
            FAILURES = l.findVarHandle(PumpCounters.class, "failures", long.class);
            INTERRUPTS = l.findVarHandle(PumpCounters.class, "interrupts", long.class);
            STALLS = l.findVarHandle(PumpCounters.class, "stalls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Written through the VarHandles above only; read by their writer plainly, by others volatile.
    private long taskSeq;
    private long dispatches;
    private long completionsRun;
    private long timersFired;
    private long parks;
    private long spinHits;
    private long failures;
    private long interrupts;
    private long stalls;
    private final LatencyHistogram latency = new LatencyHistogram();

    // ------------------------------------------------------------------ pump thread

    /**
     * Steps the task sequence, flipping its parity: when user code starts (odd) and when it ends
     * (even); and when a nested loop starts inside a task (even: dispatching, not stalled) and ends
     * (odd again: the task resumes).
     */
    void stepTaskSequence() {
        TASK_SEQ.setRelease(this, taskSeq + 1);
    }

    /** A posted task, coroutine dispatch or completion has run. */
    void dispatched() {
        DISPATCHES.setRelease(this, dispatches + 1);
    }

    /** Of the dispatches, an external completion. */
    void completionRun() {
        COMPLETIONS_RUN.setRelease(this, completionsRun + 1);
    }

    /** A timer has fired (not a dispatch). */
    void timerFired() {
        TIMERS_FIRED.setRelease(this, timersFired + 1);
    }

    /** A task, timer or completion threw. */
    void taskFailed() {
        FAILURES.setRelease(this, failures + 1);
    }

    /** The pump thread goes to sleep. */
    void parked() {
        PARKS.setRelease(this, parks + 1);
    }

    /** An idle spin found work. */
    void spinHit() {
        SPIN_HITS.setRelease(this, spinHits + 1);
    }

    /** The idle loop found its thread interrupted; returns how many times that has happened. */
    long interrupted() {
        long n = interrupts + 1;
        INTERRUPTS.setRelease(this, n);
        return n;
    }

    /** A sampled post's enqueue-to-run latency. */
    void recordLatency(long nanos) {
        latency.record(nanos);
    }

    // ------------------------------------------------------------------ watchdog thread

    /** The watchdog reported a stall; returns how many it has reported. */
    long stallReported() {
        return (long) STALLS.getAndAdd(this, 1L) + 1;
    }

    // ------------------------------------------------------------------ any thread

    /** The task sequence: odd while user code runs on the pump thread. */
    long taskSequence() {
        return (long) TASK_SEQ.getVolatile(this);
    }

    /** A snapshot of the counters, with the levels that only the pump knows. */
    PumpMetrics snapshot(String pumpName, String state, long queueDepth, long wakeups, int pendingTimers,
                         int liveChildren) {
        return new PumpMetrics(pumpName, state, queueDepth, (long) DISPATCHES.getVolatile(this),
                (long) COMPLETIONS_RUN.getVolatile(this), (long) TIMERS_FIRED.getVolatile(this), wakeups,
                (long) PARKS.getVolatile(this), (long) SPIN_HITS.getVolatile(this), latency.max(),
                latency.percentile(0.99), latency.count(), (long) STALLS.getVolatile(this),
                (long) FAILURES.getVolatile(this), (long) INTERRUPTS.getVolatile(this), pendingTimers, liveChildren);
    }
}
