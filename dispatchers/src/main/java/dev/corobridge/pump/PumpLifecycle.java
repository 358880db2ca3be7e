package dev.corobridge.pump;

import dev.corobridge.bridge.internal.TerminationFuture;
import dev.corobridge.dispatchers.internal.Deadlines;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A pump's lifecycle: the state machine {@code NEW → RUNNING → SHUTTING_DOWN → TERMINATED}, the
 * two-phase shutdown with its deadline, and the termination with its {@link ShutdownReport}.
 * {@link PumpLeftovers} does the settling this class decides on.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li><b>Start.</b> {@link #claimLoop} binds the loop to the calling thread once ({@code NEW →
 *       RUNNING}, or stays {@code SHUTTING_DOWN} if shutdown came first: the loop then shuts down).
 *       A pump started on a thread of its own is {@code RUNNING} as soon as that thread is started
 *       ({@link #threadStarted}), before the thread claims the loop.</li>
 *   <li><b>Shutdown requests</b> ({@link #shutdown(Duration)}, any thread) record the earliest start and
 *       the earliest deadline, as offsets from the pump's creation: offsets are never negative, so
 *       "earliest" is a plain {@code min} (absolute {@code nanoTime} values may wrap) and "not yet" is
 *       {@code Long.MAX_VALUE}. Both are only ever lowered, atomically, and before the state changes, so
 *       of concurrent calls the earliest deadline wins, whichever call changes the state, and the loop
 *       always reads a deadline once it sees {@code SHUTTING_DOWN}. The loop is woken when the state
 *       changes, and when a later call lowers the deadline (it may sleep until the earlier one). A pump
 *       whose loop never started and has no thread terminates at once, on the caller.</li>
 *   <li><b>Phases</b> ({@link #advance}, on the loop, each iteration while {@code SHUTTING_DOWN}):
 *       phase 1 cancels the scope's coroutines once, while the loop still runs; phase 2 keeps the loop
 *       running until nothing is left ({@link PumpLeftovers#isEmpty()}: graceful), {@link #shutdownNow()}
 *       was called, or the deadline passed (both forced). The loop stops taking work once the
 *       deadline has passed ({@link #isAbandoning}, before every item; a nested loop goes on, as the task it is part of does), and terminates after that
 *       iteration, phase 1's included: a loop that sees the deadline only after a long task ends
 *       leaves what is still queued abandoned, not run after the deadline.</li>
 *   <li><b>Termination</b>: close admission, settle the leftovers, stop the watchdog, {@code
 *       TERMINATED}, then the report (its duration read last); the termination future completes with
 *       it. If the loop itself dies, {@link #terminateAfterLoopFailure} settles as far as it still can
 *       and fails the future with a {@link PumpLoopFailedException}.</li>
 * </ul>
 *
 * <p><b>Memory effects.</b> The state is an {@code AtomicInteger} shared with the pump's readers;
 * everything the loop did before termination <i>happens-before</i> the termination future completes.
 *
 * <p><b>Thread-safety.</b> Requests and queries from any thread; {@link #advance},
 * {@link #isPhaseOnePending()} and {@link #terminateAfterLoopFailure} on the loop thread only.
 */
final class PumpLifecycle {

    private static final System.Logger LOG = System.getLogger(MessagePump.class.getName());

    static final int NEW = 0;
    static final int RUNNING = 1;
    static final int SHUTTING_DOWN = 2;
    static final int TERMINATED = 3;
    private static final String[] STATE_NAMES = {"NEW", "RUNNING", "SHUTTING_DOWN", "TERMINATED"};

    /** A shutdown time not set yet. */
    private static final long NOT_YET = Long.MAX_VALUE;

    private final MessagePump pump;
    /** The pump's state word; this class is its only writer. */
    private final AtomicInteger state;
    private final PumpLeftovers leftovers;
    /** Handed to every caller as it is: one future, which only this class completes ({@link TerminationFuture}). */
    private final TerminationFuture<ShutdownReport> termination = new TerminationFuture<>();

    private final Object lock = new Object();
    private boolean loopStarted; // guarded by lock

    /** The pump clock at creation; the shutdown times below are offsets from it. */
    private final long originNanos;
    /** Earliest {@code shutdown()} call, as an offset from {@link #originNanos}; only ever lowered. */
    private final AtomicLong shutdownStartOffset = new AtomicLong(NOT_YET);
    /**
     * Earliest deadline any {@code shutdown(Duration)} asked for, as an offset from
     * {@link #originNanos}; only ever lowered, atomically, and written before the state becomes
     * {@code SHUTTING_DOWN}, so the loop always reads a deadline once it sees that state.
     */
    private final AtomicLong shutdownDeadlineOffset = new AtomicLong(NOT_YET);
    private volatile boolean abandonNow;

    // Loop-thread state.
    private boolean phaseOneDone;
    private ScheduledFuture<?> watchdog;

    /**
     * @param pump a pump being constructed, its final fields set: the state word ({@link #NEW}, this
     *             class is its only writer), the clock, the admission word and the gate
     */
    PumpLifecycle(MessagePump pump, PumpLeftovers leftovers) {
        this.pump = pump;
        this.state = pump.state;
        this.leftovers = leftovers;
        this.originNanos = pump.clock.nanoTime();
    }

    static String stateName(int state) {
        return STATE_NAMES[state];
    }

    // ------------------------------------------------------------------ start

    /**
     * {@code runLoop()}: makes the calling thread the loop's thread.
     *
     * @throws IllegalStateException if the pump belongs to another thread, its loop already runs or
     *                               has run, or it is terminated
     */
    void claimLoop(Thread me) {
        synchronized (lock) {
            Thread owner = pump.getThread();
            if (owner != null && owner != me) {
                throw new IllegalStateException("MessagePump '" + pump.name + "' belongs to thread '" + owner.getName()
                        + "'; runLoop() may only be called by it");
            }
            if (loopStarted) {
                throw new IllegalStateException("MessagePump '" + pump.name + "' loop is already running or has run");
            }
            if (state.get() == TERMINATED) {
                throw new IllegalStateException("MessagePump '" + pump.name + "' is terminated; create a new pump");
            }
            loopStarted = true;
            pump.bindThread(me);
            state.compareAndSet(NEW, RUNNING); // or SHUTTING_DOWN already: the loop then shuts down
        }
    }

    /**
     * {@link MessagePump#start}: the pump's own thread is started, so the pump is running from now
     * on, even before that thread claims the loop ({@code NEW → RUNNING}; a no-op if the loop got
     * there first). A shutdown from now on finds {@code RUNNING} and the loop, when it claims,
     * finds the shutdown.
     */
    void threadStarted() {
        synchronized (lock) {
            state.compareAndSet(NEW, RUNNING);
        }
    }

    /** For {@link ManualPump}: the creating thread drives the loop itself. */
    void runWithoutLoop() {
        synchronized (lock) {
            loopStarted = true;
            state.set(RUNNING);
        }
    }

    /** Loop thread: the stall watchdog's sampling, stopped at termination. */
    void watchedBy(ScheduledFuture<?> sampling) {
        this.watchdog = sampling;
    }

    // ------------------------------------------------------------------ requests (any thread)

    /** See {@link MessagePump#shutdown(Duration)}. */
    CompletableFuture<ShutdownReport> shutdown(Duration gracePeriod) {
        if (gracePeriod.isNegative()) {
            throw new IllegalArgumentException("gracePeriod must not be negative, was " + gracePeriod);
        }
        long start = pump.clock.nanoTime() - originNanos;
        long deadline = start + Deadlines.saturatedNanos(gracePeriod);
        // Both only ever go down, atomically, and before the state changes: of concurrent calls the
        // earliest deadline wins, whichever call changes the state (a deadline written first and
        // lowered by check-then-set let a concurrent shutdown(1 h) extend a shutdown(ZERO)).
        shutdownStartOffset.accumulateAndGet(start, Math::min);
        long previous = shutdownDeadlineOffset.getAndAccumulate(deadline, Math::min);
        while (true) {
            int s = state.get();
            if (s == NEW && terminateIfNeverStarted()) {
                break;
            } else if (s == NEW || s == RUNNING) {
                if (state.compareAndSet(s, SHUTTING_DOWN)) {
                    pump.gate.wake();
                    break;
                }
            } else {
                if (s == SHUTTING_DOWN && deadline < previous) {
                    pump.gate.wake(); // the loop may be asleep until the previous, later deadline
                }
                break;
            }
        }
        return termination;
    }

    /** See {@link MessagePump#shutdownNow()}. */
    CompletableFuture<ShutdownReport> shutdownNow() {
        abandonNow = true;
        return shutdown(Duration.ZERO);
    }

    /** A pump whose loop never started has no thread to shut down on: terminate on the caller. */
    private boolean terminateIfNeverStarted() {
        synchronized (lock) {
            // A bound thread: start() bound and started a thread that has not entered runLoop()
            // yet. Its loop is coming, so shut down through it (the caller's shutdown() then marks
            // SHUTTING_DOWN and runLoop() proceeds to a graceful shutdown) instead of terminating
            // here, which abandoned what had been posted and made that thread's runLoop() throw.
            if (loopStarted || pump.getThread() != null || !state.compareAndSet(NEW, SHUTTING_DOWN)) {
                return false;
            }
            // Nothing runs here (there is no loop thread to run it on): what was posted is
            // abandoned, and the shutdown is graceful only if there was nothing (and not shutdownNow()).
            boolean quiet = !abandonNow && leftovers.isEmptyBeforePhaseOne();
            termination.settle(settle(false, quiet));
            return true;
        }
    }

    /** The report, once terminated; a future of it otherwise (shared: callers cannot complete it). */
    CompletableFuture<ShutdownReport> termination() {
        return termination;
    }

    /** Waits for termination; {@code false} on timeout or if the loop failed. Any thread but the loop's. */
    boolean awaitTermination(Duration timeout) throws InterruptedException {
        try {
            termination.get(Deadlines.saturatedNanos(timeout), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return false; // the loop failed; termination() carries the PumpLoopFailedException
        }
    }

    /** Whether the termination future completed exceptionally (the loop failed). */
    boolean terminationFailed() {
        return termination.isCompletedExceptionally();
    }

    // ------------------------------------------------------------------ loop side

    /**
     * Whether the loop must stop taking from its queues, before its next item: {@link #shutdownNow()}
     * asked to abandon them, or ({@code atDeadline}: the outer loop) a shutdown's deadline has passed
     * (what is still queued then is abandoned, not run, even in the middle of a batch). One volatile
     * read while no shutdown was asked for.
     */
    boolean isAbandoning(boolean atDeadline) {
        long offset = shutdownDeadlineOffset.get();
        return offset != NOT_YET && (abandonNow || atDeadline && pump.clock.nanoTime() - (originNanos + offset) >= 0);
    }

    /** Loop thread: shutdown has started and phase 1 has not run yet (work for the loop). */
    boolean isPhaseOnePending() {
        return state.get() == SHUTTING_DOWN && !phaseOneDone;
    }

    /** The effective shutdown deadline on the pump clock; {@code Long.MAX_VALUE} before any shutdown. */
    long deadlineNanos() {
        long offset = shutdownDeadlineOffset.get();
        return offset == NOT_YET ? Long.MAX_VALUE : originNanos + offset;
    }

    /**
     * Loop thread, while {@code SHUTTING_DOWN}, after an iteration that ran {@code ran} items: runs
     * phase 1 once, then terminates when phase 2 is over. Returns what the loop should see as the
     * iteration's count: at least 1 after phase 1 (cancellation queued work: look again before
     * sleeping), -1 once terminated.
     */
    int advance(int ran) {
        boolean late = pump.clock.nanoTime() - deadlineNanos() >= 0;
        if (!phaseOneDone) {
            phaseOneDone = true;
            if (late && !abandonNow) {
                // The deadline passed before the loop could begin (it was running a task): phase 2
                // has no time left, and another iteration would run queued work after the deadline.
                // Judged before the cancellation, whose wake-up of the loop is no work.
                boolean quiet = leftovers.isEmptyBeforePhaseOne();
                leftovers.cancelCoroutines();
                terminate(quiet);
                return -1;
            }
            leftovers.cancelCoroutines();
            return Math.max(ran, 1);
        }
        boolean quiet = leftovers.isEmpty();
        if (quiet || abandonNow || late) {
            terminate(quiet && !abandonNow);
            return -1;
        }
        return ran;
    }

    /** Terminates: settles leftovers and timers, completes the termination with the report. */
    private void terminate(boolean graceful) {
        termination.settle(settle(graceful));
    }

    /**
     * Closes admission, settles the leftovers, moves to TERMINATED and returns the report (without
     * completing the termination). Loop thread, or the caller of a pump that never ran.
     */
    private ShutdownReport settle(boolean graceful) {
        return settle(graceful, graceful);
    }

    /**
     * {@link #settle(boolean)}, where what raced in before admission closed is run only if
     * {@code runsWhatRacedIn} (a graceful end on the loop thread) and the report says {@code graceful}.
     */
    private ShutdownReport settle(boolean runsWhatRacedIn, boolean graceful) {
        assert pump.isLoopThread() : pump.notOnLoopThread("terminate()");
        pump.admission.close();
        PumpLeftovers.Settlement left = leftovers.settle(runsWhatRacedIn);
        if (watchdog != null) {
            watchdog.cancel(false);
        }
        state.set(TERMINATED);
        ShutdownReport report = new ShutdownReport(pump.name, graceful && left.abandonedCoroutines().isEmpty()
                && (runsWhatRacedIn || left.abandonedTasks().isEmpty()),
                left.abandonedCoroutines(), left.abandonedTasks(), left.abandonedTimers(), sinceShutdownStarted());
        // A warning only for a loss: shutdownNow() of a pump with nothing left abandons nothing.
        boolean abandonedNothing = report.abandonedCoroutines().isEmpty() && report.abandonedTasks().isEmpty()
                && report.abandonedTimers() == 0;
        LOG.log(abandonedNothing ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING, report.toString());
        return report;
    }

    /**
     * The loop died from {@code loopFailure}: terminate as a forced shutdown would, as far as that
     * still works, and fail the termination with it, so that nobody waits for the pump forever and
     * posts are rejected rather than queued for a loop that will never run them.
     */
    void terminateAfterLoopFailure(Throwable loopFailure) {
        ShutdownReport report = null;
        Throwable settleFailure = null;
        if (state.get() != TERMINATED) {
            try {
                report = settle(false);
            } catch (Throwable e) {
                settleFailure = e; // settling is best effort now: finish below regardless
            }
        }
        pump.admission.close();
        state.set(TERMINATED);
        if (watchdog != null) {
            watchdog.cancel(false);
        }
        PumpLoopFailedException failed = new PumpLoopFailedException(pump.name, report, loopFailure);
        if (settleFailure != null) {
            failed.addSuppressed(settleFailure);
        }
        try {
            LOG.log(System.Logger.Level.ERROR, failed.getMessage(), failed);
        } finally {
            termination.fail(failed);
        }
    }

    /** From the earliest shutdown() call until now; zero if there was none (the loop failed). */
    private Duration sinceShutdownStarted() {
        long start = shutdownStartOffset.get();
        return start == NOT_YET ? Duration.ZERO
                : Duration.ofNanos(Math.max(0, pump.clock.nanoTime() - originNanos - start));
    }
}
