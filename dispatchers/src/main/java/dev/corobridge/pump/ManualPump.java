package dev.corobridge.pump;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A deterministic pump for tests, driven by the test thread with a manual clock: no thread of its
 * own, no real sleeping. The thread that creates it is its pump thread (so {@link #checkAccess()},
 * {@link Affine} and the dispatcher behave as in production); work posted from any thread is
 * queued until the test calls {@link #runUntilIdle()} or {@link #advanceTimeBy(Duration)}.
 *
 * <pre>{@code
 * ManualPump ui = ManualPump.create("ui");
 * ui.schedule(() -> shown.set(true), Duration.ofSeconds(5));
 * ui.advanceTimeBy(Duration.ofSeconds(4));  assertFalse(shown.get());
 * ui.advanceTimeBy(Duration.ofSeconds(1));  assertTrue(shown.get());
 * }</pre>
 *
 * Time starts at 0 and moves only through {@link #advanceTimeBy}/{@link #advanceUntilIdle}; the
 * shutdown grace period is measured on the same clock, so a test can walk through both shutdown
 * phases. {@link #pumpUntil} never waits: it runs what is ready and returns. The stall watchdog is
 * off (a test thread is allowed to block).
 *
 * <p><b>Thread-safety.</b> Posting is safe from any thread; the driving methods belong to the
 * creating thread and throw {@link PumpAffinityException} elsewhere.
 */
public final class ManualPump extends MessagePump {

    /** Guards against a task that re-posts itself forever. */
    private static final int MAX_TASKS_PER_RUN = 1_000_000;

    private final ManualClock manualClock;

    private ManualPump(PumpConfig config, ManualClock clock) {
        super(config.toBuilder().stallThreshold(Duration.ZERO).spinBudget(Duration.ZERO).build(), clock, false);
        this.manualClock = clock;
        bindThread(Thread.currentThread());
        markRunningWithoutLoop();
    }

    /** A manual pump owned by the calling thread. */
    public static ManualPump create(String name) {
        return create(PumpConfig.defaults(name));
    }

    /** A manual pump owned by the calling thread, with these settings (watchdog and spinning off). */
    public static ManualPump create(PumpConfig config) {
        return new ManualPump(Objects.requireNonNull(config, "config"), new ManualClock());
    }

    /**
     * Runs everything that is ready now: posted tasks, completions, coroutine dispatches and due
     * timers, including work they post, until nothing is ready. Returns how many items ran.
     *
     * @throws IllegalStateException if work keeps re-posting itself past a million items
     */
    public int runUntilIdle() {
        checkAccess();
        int total = 0;
        while (true) {
            int n = drive();
            if (n < 0) {
                return total;
            }
            total += n;
            if (n == 0 && !loop().hasWork()) {
                return total;
            }
            if (total > MAX_TASKS_PER_RUN) {
                throw new IllegalStateException("ManualPump '" + getName() + "' still busy after " + total
                        + " tasks: something re-posts itself forever");
            }
        }
    }

    /**
     * Moves the clock forward by {@code d}, firing timers in due order at their own due times
     * (each followed by {@link #runUntilIdle()}), and returns how many items ran.
     */
    public int advanceTimeBy(Duration d) {
        Objects.requireNonNull(d, "d");
        if (d.isNegative()) {
            throw new IllegalArgumentException("cannot move time backwards: " + d);
        }
        checkAccess();
        long nanos;
        try {
            nanos = d.toNanos();
        } catch (ArithmeticException tooLong) {
            nanos = Long.MAX_VALUE; // to the end of time, as schedule() takes any duration
        }
        long now = manualClock.now.get();
        long target = nanos > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + nanos;
        int total = runUntilIdle();
        long next;
        while (!isTerminated() && (next = timers.nextDue()) != Long.MAX_VALUE && next - target <= 0) {
            manualClock.now.set(Math.max(manualClock.now.get(), next));
            total += runUntilIdle();
        }
        manualClock.now.set(target);
        return total + runUntilIdle();
    }

    /**
     * Runs until no task is ready and no timer is pending, moving the clock to each timer's due
     * time. Returns how many items ran.
     */
    public int advanceUntilIdle() {
        checkAccess();
        int total = runUntilIdle();
        long next;
        while (!isTerminated() && (next = timers.nextDue()) != Long.MAX_VALUE) {
            manualClock.now.set(Math.max(manualClock.now.get(), next));
            total += runUntilIdle();
            if (total > MAX_TASKS_PER_RUN) {
                throw new IllegalStateException("ManualPump '" + getName() + "' still busy after " + total
                        + " items: a timer re-schedules itself forever");
            }
        }
        return total;
    }

    /** The manual clock, in nanoseconds since creation. */
    public long getCurrentTimeNanos() {
        return manualClock.now.get();
    }

    private static final class ManualClock implements PumpClock {
        final AtomicLong now = new AtomicLong();

        @Override
        public long nanoTime() {
            return now.get();
        }
    }
}
