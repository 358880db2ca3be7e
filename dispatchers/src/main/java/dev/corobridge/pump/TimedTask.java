package dev.corobridge.pump;

/**
 * A sampled post: the task and the pump-clock time it was enqueued at, for the queue-latency
 * histogram ({@link PumpMetrics#queueLatencyP99Nanos()}). One post in
 * {@link PumpConfig#latencySampleEvery()} is wrapped so; the others go into the queue as they are.
 *
 * <p><b>Thread-safety.</b> Immutable; created by the posting thread, published by the queue, run on
 * the pump thread ({@link PumpTaskRunner} unwraps it, so the task itself runs, not this wrapper).
 */
final class TimedTask implements Runnable {

    final Runnable task;
    final long enqueuedAt;

    TimedTask(Runnable task, long enqueuedAt) {
        this.task = task;
        this.enqueuedAt = enqueuedAt;
    }

    @Override
    public void run() {
        task.run();
    }
}
