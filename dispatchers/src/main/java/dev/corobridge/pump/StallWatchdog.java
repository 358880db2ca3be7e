package dev.corobridge.pump;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Detects tasks that hold a pump thread longer than its stall threshold, without putting a clock
 * read on the pump's hot path.
 *
 * <p><b>Algorithm.</b> The pump increments a sequence number when a task starts and again when it
 * ends, so the number is odd exactly while user code runs (a nested {@code pumpUntil} loop makes it
 * even again while it dispatches). One shared daemon thread samples every registered pump at a
 * quarter of its threshold. When it sees the same odd number for at least the threshold, that task
 * is stalled: it captures the pump thread's stack, reports it once, and counts it. The reported
 * duration is a lower bound (the task may have started up to one sampling period earlier).
 *
 * <p><b>The thread.</b> {@code corobridge-stall-watchdog}, a daemon, shared by all pumps. Loading
 * this class starts no thread: the first watched pump starts it, and it ends one second after the
 * last pump stopped being watched (a pump's shutdown cancels its sampling); the next pump starts a
 * new one.
 *
 * <p><b>Thread-safety.</b> Registration is safe from any thread; sampling state is confined to the
 * watchdog thread.
 */
final class StallWatchdog {

    /** How long the watchdog thread waits with no pump to sample before it ends. */
    private static final long IDLE_KEEP_ALIVE_MILLIS = 1_000;

    private static final ScheduledThreadPoolExecutor TIMER = newTimer();

    private StallWatchdog() {
    }

    /** Starts watching {@code pump}; cancel the returned future to stop. */
    static ScheduledFuture<?> watch(MessagePump pump, Thread thread, Duration threshold) {
        long thresholdNanos = threshold.toNanos();
        long period = Math.max(TimeUnit.MILLISECONDS.toNanos(5), thresholdNanos / 4);
        Sampler sampler = new Sampler(pump, thread, thresholdNanos, PumpClock.SYSTEM);
        return TIMER.scheduleWithFixedDelay(sampler, period, period, TimeUnit.NANOSECONDS);
    }

    private static ScheduledThreadPoolExecutor newTimer() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1, r -> {
            Thread th = new Thread(r, "corobridge-stall-watchdog");
            th.setDaemon(true);
            return th;
        });
        t.setRemoveOnCancelPolicy(true); // a stopped pump's sampler leaves the queue at once
        t.setKeepAliveTime(IDLE_KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS); // then the idle thread ends
        t.allowCoreThreadTimeOut(true);
        return t;
    }

    /**
     * One pump's sampling state; {@link #run()} takes one sample. The watchdog thread runs it
     * periodically; tests run it by hand with a manual clock.
     */
    static final class Sampler implements Runnable {
        private final MessagePump pump;
        private final Thread thread;
        private final long thresholdNanos;
        private final PumpClock clock;
        private long lastSeq = -1;
        private long lastSeqSince;
        private long reportedSeq = -1;

        Sampler(MessagePump pump, Thread thread, long thresholdNanos, PumpClock clock) {
            this.pump = pump;
            this.thread = thread;
            this.thresholdNanos = thresholdNanos;
            this.clock = clock;
        }

        @Override
        public void run() {
            long seq = pump.taskSequence();
            long now = clock.nanoTime();
            if (seq != lastSeq) {
                lastSeq = seq;
                lastSeqSince = now;
                return;
            }
            long running = now - lastSeqSince;
            if ((seq & 1) == 1 && running >= thresholdNanos && reportedSeq != seq) {
                reportedSeq = seq;
                StackTraceElement[] stack = thread.getStackTrace();
                if (pump.taskSequence() == seq) { // still the same task: the stack is the stall's
                    pump.reportStall(thread, Duration.ofNanos(running), Arrays.asList(stack));
                }
            }
        }
    }
}
