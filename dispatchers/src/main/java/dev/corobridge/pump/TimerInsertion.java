package dev.corobridge.pump;

/**
 * The hand-over of a timer scheduled off the pump thread: the timer heap belongs to the pump thread
 * ({@link TimerQueue}), so another thread posts this, and the pump adds the timer when it runs it.
 *
 * <p>It is bookkeeping, not user code: a forced shutdown that finds it still queued runs it anyway
 * (the timer then reaches the heap and is settled with the others, see {@link PumpLeftovers}) instead
 * of counting it as an abandoned task.
 *
 * <p><b>Thread-safety.</b> Immutable; created on any thread, run on the pump thread.
 */
final class TimerInsertion implements Runnable {

    private final TimerQueue timers;
    private final PumpTimer timer;

    TimerInsertion(TimerQueue timers, PumpTimer timer) {
        this.timers = timers;
        this.timer = timer;
    }

    @Override
    public void run() {
        timers.add(timer);
    }
}
