package dev.corobridge.pump;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;

import dev.corobridge.bridge.internal.TaskStep;

/**
 * What a shutting-down pump still holds — the coroutines of its scope, queued tasks, completions and
 * coroutine resumptions, pending timers — and how each is settled, so that nothing is silently
 * dropped. {@link PumpLifecycle} decides <i>when</i>; this class does the work.
 *
 * <p><b>Algorithm.</b>
 * <ul>
 *   <li>Phase 1, {@link #cancelCoroutines()}: the scope's job is cancelled with a
 *       {@link PumpShutdownException}, so every child runs its cleanup on the still-running loop;
 *       when the last one has finished, a no-op is posted so that the loop looks again at once
 *       instead of sleeping until the deadline.</li>
 *   <li>Phase 2 ends when {@link #isEmpty()}: no live child, both queues empty.</li>
 *   <li>{@link #settle(boolean)}, after admission closed: a graceful termination runs what raced into
 *       the queues before admission closed (still ours to run). A forced one sorts each item: the
 *       pump's own no-op nudges are dropped; a {@link TimerInsertion} is run (bookkeeping, so the
 *       timer is settled below); a coroutine resumption is sent to the fallback executor after its
 *       coroutine was cancelled (dropping it would leave the coroutine, and a {@code withContext}
 *       caller on another thread, hanging forever); anything else is an abandoned task, and a
 *       {@code Task}'s step among them cancels its task with a {@link PumpShutdownException}. Then every
 *       pending timer is abandoned: a coroutine timer's {@code onAbandon} moves it to the fallback,
 *       a {@code schedule} timer is counted. The live coroutines are described before any timer
 *       is abandoned, step dropped or resumption sent (each can resume a coroutine on the fallback
 *       executor), so that the report does not depend on how fast the fallback runs.</li>
 * </ul>
 *
 * <p><b>Memory effects.</b> {@link #settle} drains the queues after the admission word was closed:
 * every admitted offer <i>happens-before</i> that close returns ({@link PumpAdmission}), so the one
 * drain sees everything that was admitted, and nothing is offered after it.
 *
 * <p><b>Thread-safety.</b> Pump thread only (or the caller terminating a pump whose loop never
 * started), like the loop whose state it settles. It reads the pump's queues, timers and scope
 * through the pump: settling happens once per pump, not on a hot path.
 */
final class PumpLeftovers {

    /** What {@link #settle} left: for the {@link ShutdownReport}. */
    record Settlement(List<String> abandonedCoroutines, List<Runnable> abandonedTasks, int abandonedTimers) {
    }

    /** The pump whose queues, timers and scope are settled (rarely: once per pump, so read from it). */
    private final MessagePump pump;
    private final PumpTaskRunner runner;

    PumpLeftovers(MessagePump pump, PumpTaskRunner runner) {
        this.pump = pump;
        this.runner = runner;
    }

    /** Phase 1: cancels every coroutine of the scope; the loop is nudged when the last has finished. */
    void cancelCoroutines() {
        PumpCoroutines.cancelScope(pump.getScope(), new PumpShutdownException(pump.name,
                "shutting down; coroutine cancelled so that it can clean up"), () -> pump.nudge());
    }

    /**
     * Whether nothing is left before phase 1 cancelled the scope (which is active until then, and
     * whose cancellation posts a wake-up): no live child coroutine, no queued work and no due timer.
     */
    boolean isEmptyBeforePhaseOne() {
        return PumpCoroutines.liveChildren(pump.getScope()) == 0 && pump.tasks.isEmpty() && pump.completions.isEmpty()
                && !pump.timers.hasDue(pump.clock.nanoTime());
    }

    /**
     * Whether nothing is left: no live coroutine in the scope, no queued work and no due timer (a
     * due timer is work; one not due yet does not hold the shutdown, it is abandoned and counted).
     */
    boolean isEmpty() {
        return PumpCoroutines.isScopeDone(pump.getScope()) && pump.tasks.isEmpty() && pump.completions.isEmpty()
                && !pump.timers.hasDue(pump.clock.nanoTime());
    }

    /**
     * Settles everything left (see the class comment). Admission must be closed: the queues are
     * drained once. Failures of {@code onAbandon} actions and fallback hand-overs are reported to
     * the uncaught-exception handler, and settling goes on.
     */
    Settlement settle(boolean graceful) {
        List<Runnable> abandonedTasks = new ArrayList<>();
        List<Runnable> resumptions = new ArrayList<>();
        List<TaskStep> dropped = new ArrayList<>();
        Queue<Runnable> tasks = pump.tasks;
        Queue<Runnable> completions = pump.completions;
        while (true) {
            Runnable r = tasks.poll();
            boolean completion = r == null;
            if (completion && (r = completions.poll()) == null) {
                break;
            }
            if (r == MessagePump.NO_OP) {
                pump.nudgeTaken();
                continue; // our own wake-up nudges are not work
            }
            if (graceful) { // raced in before admission closed: still ours to run
                if (completion) {
                    runner.runCompletion(r);
                } else {
                    runner.runTask(r);
                }
                continue;
            }
            Runnable task = r instanceof TimedTask tt ? tt.task : r;
            if (task instanceof TimerInsertion) {
                // Bookkeeping, not user code: the timer reaches the heap and is settled below with
                // the others (a coroutine timer's onAbandon moves it to the fallback). Dropping the
                // insertion would leave its delay or timeout pending forever.
                task.run();
            } else if (task instanceof kotlin.coroutines.Continuation<?>) {
                // A coroutine resumption (kotlinx dispatches the continuation itself). Dropping it
                // would leave the coroutine suspended forever, and a withContext caller on another
                // thread hanging: hand it to the fallback below, like a dispatch refused after
                // termination.
                resumptions.add(task);
            } else {
                abandonedTasks.add(task);
                if (task instanceof TaskStep step) {
                    dropped.add(step);
                }
            }
        }
        // Described before any timer is abandoned, step dropped or resumption sent: each of those can
        // resume a coroutine on the fallback executor, where it may finish before the report is made.
        List<String> abandonedCoroutines = PumpCoroutines.describeLiveChildren(pump.getScope());
        int abandonedTimers = 0;
        for (PumpTimer t : pump.timers.abandonAll()) {
            if (t.onAbandon == null) {
                abandonedTimers++;
            } else {
                try {
                    t.onAbandon.run();
                } catch (Throwable e) {
                    runner.reportFailure(e);
                }
            }
        }
        // A Task's step is abandoned too, and its task cancelled, as a rejected one is: whoever
        // waits for the task learns that it will not run instead of waiting forever.
        for (TaskStep step : dropped) {
            try {
                step.dropped(new PumpShutdownException(pump.name, "terminated forcibly; the task was dropped before it ran"));
            } catch (Throwable e) {
                runner.reportFailure(e);
            }
        }
        for (Runnable resumption : resumptions) {
            try {
                PumpCoroutines.resumeOnFallback(resumption, new PumpShutdownException(pump.name,
                        "terminated forcibly; the coroutine was cancelled and resumes on the fallback executor"),
                        pump.fallbackExecutor());
            } catch (Throwable e) {
                runner.reportFailure(e);
            }
        }
        return new Settlement(abandonedCoroutines, abandonedTasks, abandonedTimers);
    }
}
