package dev.corobridge.pump;

import dev.corobridge.pump.PumpCounters.Counter;

/**
 * Runs one unit of work on the pump thread — a posted task, a coroutine dispatch, a completion, a
 * timer's action, the idle hook — and accounts for it: the counters and the stall watchdog's task
 * sequence ({@link PumpCounters}), the queue latency of a sampled post ({@link TimedTask}), and a
 * failure, which goes to {@link PumpConfig#uncaughtExceptionHandler()}.
 *
 * <p><b>Failures.</b> Work that throws is counted and handed to the handler; the loop goes on. A
 * handler that throws in turn is logged at {@code ERROR} with both exceptions (neither is changed:
 * both may be shared), and if even logging fails, a line goes to {@code System.err}. Nothing escapes
 * {@link #reportFailure}: a failing handler must not take the loop down.
 *
 * <p><b>Thread-safety.</b> Pump thread only (it writes the single-writer counters).
 */
final class PumpTaskRunner {

    private static final System.Logger LOG = System.getLogger(MessagePump.class.getName());

    private final String name;
    private final PumpClock clock;
    private final PumpCounters counters;
    private final Thread.UncaughtExceptionHandler handler;

    PumpTaskRunner(String name, PumpClock clock, PumpCounters counters, Thread.UncaughtExceptionHandler handler) {
        this.name = name;
        this.clock = clock;
        this.counters = counters;
        this.handler = handler;
    }

    /**
     * Runs a task taken from a queue (unwrapping a sampled one), counted as a dispatch when it
     * starts: a caller that has seen what the task did finds it counted.
     */
    void runTask(Runnable r) {
        if (r instanceof TimedTask tt) {
            counters.recordLatency(clock.nanoTime() - tt.enqueuedAt);
            r = tt.task;
        }
        counters.count(Counter.DISPATCHES);
        run(r);
    }

    /** Runs an external completion: a dispatch, and of them a completion, counted as it starts. */
    void runCompletion(Runnable r) {
        counters.count(Counter.COMPLETIONS_RUN);
        runTask(r);
    }

    /** Runs a due timer's action, counted as fired when it starts. */
    void runTimer(PumpTimer t) {
        counters.count(Counter.TIMERS_FIRED);
        run(t.action);
    }

    /** Runs user code between the two steps of the task sequence; a failure is counted and reported. */
    private void run(Runnable r) {
        counters.stepTaskSequence(); // odd: user code runs
        try {
            r.run();
        } catch (Throwable e) {
            counters.count(Counter.FAILURES);
            reportFailure(e);
        } finally {
            counters.stepTaskSequence(); // even again
        }
    }

    /** Hands {@code e} to the uncaught-exception handler; never throws. */
    void reportFailure(Throwable e) {
        try {
            handler.uncaughtException(Thread.currentThread(), e);
        } catch (Throwable handlerFailure) {
            reportHandlerFailure(e, handlerFailure);
        }
    }

    /**
     * The uncaught-exception handler threw while handling {@code failure}: neither may be lost,
     * and neither is ours to change (both may be shared), so a new exception carries both to the
     * log. A failing handler must not take the loop down, so neither does a failing log.
     */
    private void reportHandlerFailure(Throwable failure, Throwable handlerFailure) {
        try {
            IllegalStateException both = new IllegalStateException("MessagePump '" + name
                    + "': the uncaught-exception handler threw " + handlerFailure + " while handling " + failure
                    + " (the handler's exception is the cause, the original failure is suppressed)",
                    handlerFailure);
            if (failure != handlerFailure) {
                both.addSuppressed(failure);
            }
            LOG.log(System.Logger.Level.ERROR, both.getMessage(), both);
        } catch (Throwable logFailure) {
            try {
                System.err.println("MessagePump '" + name + "': the uncaught-exception handler threw "
                        + handlerFailure + " while handling " + failure + ", and logging that failed: " + logFailure);
            } catch (Throwable ignored) {
                // Nowhere left to report to; the loop goes on.
            }
        }
    }
}
