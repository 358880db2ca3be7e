package dev.corobridge.pump;

import dev.corobridge.bridge.internal.CarriedContexts;
import dev.corobridge.context.CapturedContext;
import dev.corobridge.context.RestoredContext;
import dev.corobridge.context.internal.ContextSteps;
import dev.corobridge.pump.PumpCounters.Counter;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;

/**
 * The consumer side of a pump: one loop iteration over its three sources, and what the loop does
 * when they are dry — the idle hook, an adaptive spin, then the arm-recheck-park handshake of the
 * {@link WakeupGate}. {@link MessagePump} is the producer side (its queues and admission) and the
 * public face; {@link NestedLoop} reuses {@link #runIteration(boolean)} and {@link #sleep(long)}.
 *
 * <p><b>Algorithm.</b> An iteration runs at most {@code batchSize} posted tasks, then at most
 * {@code batchSize} due timers, then at most {@code batchSize} completions; bounded batches keep a
 * task that re-posts itself forever from starving timers, completions or other producers. While
 * shutting down, {@link PumpLifecycle#advance} follows each iteration. An idle pump runs the idle
 * hook, then spins up to {@code spinBudget} re-checking the queues — but only while spinning pays
 * off and the pump is not crowded ({@link IdleSpin} decides: a score of recent spins, and the size
 * of the busy periods; measured in benchmarks/HISTORY.md). Then it arms the gate, re-checks every
 * source, and parks until the next timer or the shutdown deadline; a pump whose traffic stopped parks
 * without a timeout, at no CPU cost.
 *
 * <p><b>Context.</b> A coroutine resumption that carries a task's context ({@code
 * ContextPropagation}) restores it when it runs and puts the pump thread's own values back when it
 * suspends. When the posted batch holds several resumptions in a row that carry the same values
 * (say, many coroutines of one request hopping onto the pump), the loop restores those values once
 * before the first and puts them back after the last, so that each resumption's own restore finds
 * them in place and sets nothing (no MDC install, no observation scope opened). The loop puts them
 * back before anything else runs: a post that is not such a resumption, a resumption of another
 * context or of none, timers, completions, idling, and a nested loop's return to its caller. It
 * decides by looking at the resumption's coroutine context before running it
 * ({@code CarriedContexts}); resumptions of {@code withContext} blocks that kotlinx started without a
 * dispatch are never kept (kotlinx runs their caller in the same task after putting the block's
 * context back).
 *
 * <p><b>Interrupts.</b> A park that returns with the interrupt status set clears it (or every later
 * park would return at once and the idle loop would spin), counts it, and logs the first one per
 * pump at {@code WARNING}: a pump is stopped by {@code shutdown()}, not by an interrupt.
 *
 * <p><b>Memory effects.</b> Work taken from the queues was published by the producers' offers
 * (volatile), so what a producer did before posting <i>happens-before</i> the task runs.
 *
 * <p><b>Thread-safety.</b> Confined to the pump thread (its methods {@code assert} it); the queues,
 * the gate and the timer queue are shared with the producers as their own comments describe. The
 * fields that the hot paths read are final fields of this class, read once per batch into locals.
 */
final class PumpLoop {

    private static final System.Logger LOG = System.getLogger(MessagePump.class.getName());
    /**
     * Whether a run of consecutive coroutine resumptions that carry the same context (see the
     * class comment, "Context") runs inside one restore of it: on unless kotlinx's resumptions
     * cannot be recognised ({@link CarriedContexts#getAvailable()}) or
     * {@code -Dcorobridge.pump.keepContext=false}.
     */
    private static final boolean KEEPS_CONTEXT = CarriedContexts.getAvailable()
            && !"false".equalsIgnoreCase(System.getProperty("corobridge.pump.keepContext", "true"));

    private final MessagePump pump;
    private final PumpLifecycle lifecycle;
    private final PumpTaskRunner runner;
    /** {@code false} for {@link ManualPump}: never wait for a clock that only the test moves. */
    private final boolean realTime;
    // What every iteration reads: copied from the pump's final fields into this class's.
    private final PumpClock clock;
    private final MpscUnboundedAtomicArrayQueue<Runnable> tasks;
    private final MpscUnboundedAtomicArrayQueue<Runnable> completions;
    private final TimerQueue timers;
    private final PumpCounters counters;
    private final int batchSize;
    private final long maxSpinNanos;
    private final Runnable idleHook;

    // Pump-thread state.
    /** Whether the idle loop spins before it parks. */
    private final IdleSpin spin;
    private boolean interruptLogged;

    /** @param realTime {@code false} for a {@link ManualPump} */
    PumpLoop(MessagePump pump, PumpLifecycle lifecycle, PumpTaskRunner runner, boolean realTime) {
        this.pump = pump;
        this.lifecycle = lifecycle;
        this.runner = runner;
        this.realTime = realTime;
        this.clock = pump.clock;
        this.tasks = pump.tasks;
        this.completions = pump.completions;
        this.timers = pump.timers;
        this.counters = pump.counters;
        this.batchSize = pump.config.batchSize();
        this.maxSpinNanos = pump.config.spinBudget().toNanos();
        this.idleHook = pump.config.idleHook();
        this.spin = new IdleSpin(maxSpinNanos > 0);
    }

    /** Whether the loop waits for real time ({@code false}: a {@link ManualPump}). */
    boolean waitsForRealTime() {
        return realTime;
    }

    /** Whether any source has work right now. */
    boolean hasWork() {
        assert pump.isLoopThread() : pump.notOnLoopThread("hasWork()");
        return !tasks.isEmpty() || !completions.isEmpty() || timers.hasDue(clock.nanoTime())
                || lifecycle.isPhaseOnePending();
    }

    /**
     * One iteration plus shutdown processing. Returns the number of items run, or -1 once the pump
     * has terminated.
     */
    int drive() {
        assert pump.isLoopThread() : pump.notOnLoopThread("drive()");
        int n = runIteration(true);
        spin.ran(n);
        int s = pump.state.get();
        if (s == PumpLifecycle.SHUTTING_DOWN) {
            return lifecycle.advance(n);
        }
        return s == PumpLifecycle.TERMINATED ? -1 : n;
    }

    /**
     * Runs at most one batch from each source. {@code outer}: the loop itself, which stops taking
     * work once a shutdown's deadline has passed; a nested loop ({@link NestedLoop}) is part of a
     * running task, which the deadline does not interrupt, and stops only for {@code shutdownNow()}.
     */
    int runIteration(boolean outer) {
        assert pump.isLoopThread() : pump.notOnLoopThread("runIteration()");
        PumpLifecycle lc = lifecycle;
        PumpTaskRunner run = runner;
        MpscUnboundedAtomicArrayQueue<Runnable> q = tasks;
        int n = 0;
        int budget = batchSize;
        Runnable r;
        RestoredContext kept = null; // see keepsContext
        CapturedContext keptContext = null;
        try {
            while (budget-- > 0 && !lc.isAbandoning(outer) && (r = q.poll()) != null) {
                if (KEEPS_CONTEXT) {
                    CapturedContext carried = CarriedContexts.of(unwrap(r));
                    if (kept != null && !ContextSteps.sameValues(keptContext, carried)) {
                        kept = putBack(kept);
                    }
                    if (kept == null && carried != null && ContextSteps.sameValues(carried, CarriedContexts.of(unwrap(q.peek())))) {
                        kept = keep(carried);
                        keptContext = carried;
                    }
                }
                if (r == MessagePump.NO_OP) {
                    pump.nudgeTaken();
                }
                run.runTask(r);
                n++;
            }
        } finally {
            if (kept != null) {
                putBack(kept); // before timers, completions, idling, a return to a nested loop's caller
            }
        }
        if (timers.nextDue() != Long.MAX_VALUE) {
            long now = clock.nanoTime();
            budget = batchSize;
            PumpTimer t;
            while (budget-- > 0 && !lc.isAbandoning(outer) && (t = timers.pollDue(now)) != null) {
                run.runTimer(t);
                n++;
            }
            timers.purgeIfMostlyCancelled();
        }
        q = completions;
        budget = batchSize;
        while (budget-- > 0 && !lc.isAbandoning(outer) && (r = q.poll()) != null) {
            run.runCompletion(r);
            n++;
        }
        return n;
    }

    /** A sampled post's task. */
    private static Runnable unwrap(Runnable r) {
        return r instanceof TimedTask tt ? tt.task : r;
    }

    /**
     * Restores {@code carried} around the coming run of resumptions that carry the same values;
     * null if that fails (then each resumption restores, and fails, by itself, as it would anyway).
     */
    private static RestoredContext keep(CapturedContext carried) {
        try {
            return ContextSteps.enter(carried);
        } catch (Throwable e) {
            return null; // the resumption's own restore fails the same way and decides its coroutine
        }
    }

    /** Puts the pump thread's own values back after a run of resumptions of one context; returns null. */
    private RestoredContext putBack(RestoredContext kept) {
        try {
            kept.close();
        } catch (Throwable e) {
            runner.reportFailure(e); // as a resumption's own put-back failure would be: reported, the loop goes on
        }
        return null;
    }

    /**
     * The loop ran out of work: idle hook, adaptive spin, then arm-recheck-park until the next timer
     * (or the shutdown deadline).
     */
    void idle() {
        assert pump.isLoopThread() : pump.notOnLoopThread("idle()");
        boolean spins = spin.wentIdle();
        Runnable hook = idleHook;
        if (hook != null) {
            runner.runTask(hook);
            if (hasWork()) {
                return;
            }
        }
        if (spins) {
            long start = System.nanoTime();
            do {
                // Posts are what a spinning pump waits for: look at that queue after every pause
                // (two index reads), so a caller that posts and then parks is answered before its
                // park completes; the full check (a clock read for timers) every 32 pauses.
                for (int i = 0; i < 32; i++) {
                    Thread.onSpinWait();
                    if (!tasks.isEmpty()) {
                        break;
                    }
                }
                if (hasWork()) {
                    counters.count(Counter.SPIN_HITS);
                    spin.spinHit();
                    return;
                }
            } while (System.nanoTime() - start < maxSpinNanos);
            spin.spinMissed();
        }
        spin.parked(sleep(Long.MAX_VALUE));
    }

    /**
     * Arms the gate, re-checks every source, parks until {@code limit} (absolute, pump clock), the
     * next timer or the shutdown deadline. Returns whether it actually parked.
     */
    boolean sleep(long limit) {
        pump.gate.arm();
        if (hasWork()) {
            pump.gate.disarm();
            return false;
        }
        // The shutdown deadline is read after arming, like every other source: a shutdown() that
        // lowers it after this read sees the gate armed and wakes us.
        long until = Math.min(Math.min(limit, timers.nextDue()),
                pump.state.get() == PumpLifecycle.SHUTTING_DOWN ? lifecycle.deadlineNanos() : Long.MAX_VALUE);
        long timeout = until == Long.MAX_VALUE ? -1 : Math.max(1, until - clock.nanoTime());
        counters.count(Counter.PARKS);
        if (parkFor(timeout)) {
            onInterrupted();
        }
        pump.gate.disarm();
        return true;
    }

    /**
     * Parks the pump thread; a {@link ManualPump} never waits for real time, and leaves the test
     * thread's interrupt status alone (it is the test's own business). Returns whether the thread's
     * interrupt status was set (it is cleared then).
     */
    private boolean parkFor(long timeoutNanos) {
        return realTime && pump.gate.park(timeoutNanos);
    }

    /**
     * The pump thread was interrupted (and the status is cleared now, or every later park would
     * return at once and the idle loop would spin). A pump is stopped by shutdown(), not by an
     * interrupt, so the loop goes on; the first interrupt is worth a warning, since it usually
     * means someone expected it to stop something.
     */
    private void onInterrupted() {
        long n = counters.count(Counter.INTERRUPTS);
        if (!interruptLogged) {
            interruptLogged = true;
            LOG.log(System.Logger.Level.WARNING, "MessagePump '" + pump.name + "': thread '"
                    + Thread.currentThread().getName() + "' was interrupted. A pump is not stopped by an"
                    + " interrupt: the status was cleared and the loop goes on; call shutdown() to stop it."
                    + " Further interrupts are counted in metrics().interrupts() and logged at DEBUG.");
        } else {
            LOG.log(System.Logger.Level.DEBUG, "MessagePump '" + pump.name + "': interrupted again (" + n
                    + " times); status cleared");
        }
    }
}
