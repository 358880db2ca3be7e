package dev.corobridge.pump;

/**
 * A point-in-time snapshot of a pump's counters. Counters are cumulative since the pump was
 * created; read two snapshots and subtract for rates. A unit of work (a task, a completion, a timer)
 * is counted when it starts, so a caller that has seen what it did finds it counted, and a task that
 * reads the metrics on the pump finds itself counted.
 *
 * @param pumpName              the pump
 * @param state                 {@code NEW}, {@code RUNNING}, {@code SHUTTING_DOWN} or {@code TERMINATED}
 * @param queueDepth            posted tasks and completions waiting (approximate under concurrency)
 * @param dispatches            tasks run: posts, coroutine dispatches, delivered completions, and the
 *                              internal hand-over of timers scheduled from other threads
 * @param completionsDelivered  of which external completions
 * @param timersFired           timers that fired (not counted in {@code dispatches})
 * @param wakeups               real wake-ups: unparks of the sleeping pump thread by a producer
 * @param parks                 times the pump thread went to sleep
 * @param spinHits              idle periods ended by work found while spinning (no sleep, no wake-up)
 * @param queueLatencyMaxNanos  longest sampled enqueue-to-run latency
 * @param queueLatencyP99Nanos  99th percentile of sampled enqueue-to-run latency
 * @param latencySamples        how many posts were sampled for latency
 * @param stalls                tasks reported by the stall watchdog
 * @param taskFailures          tasks, timers and delivered completions that threw (each reported to
 *                              {@code PumpConfig.uncaughtExceptionHandler})
 * @param interrupts            times the idle pump found its thread interrupted and cleared the
 *                              status (a pump is stopped by {@code shutdown()}, not by an interrupt;
 *                              the first one is also logged as a warning)
 * @param pendingTimers         timers scheduled and not yet fired or cancelled
 * @param liveChildren          live coroutines in the pump's scope
 */
public record PumpMetrics(String pumpName, String state, long queueDepth, long dispatches,
                          long completionsDelivered, long timersFired, long wakeups, long parks,
                          long spinHits, long queueLatencyMaxNanos, long queueLatencyP99Nanos,
                          long latencySamples, long stalls, long taskFailures, long interrupts,
                          int pendingTimers, int liveChildren) {

    /** Wake-ups per dispatch: below 1 means posts shared wake-ups; 0 when nothing ran. */
    public double wakeupsPerDispatch() {
        return dispatches == 0 ? 0.0 : (double) wakeups / dispatches;
    }

    /**
     * Dispatches per wake-up, the inverse view: how many resumptions (e.g. a batch of ring
     * completions bound for coroutines on the pump) one wake-up of the sleeping pump served.
     * {@code dispatches} when the pump never had to be woken.
     */
    public double dispatchesPerWakeup() {
        return wakeups == 0 ? dispatches : (double) dispatches / wakeups;
    }
}
