package dev.corobridge.pump;

import java.time.Duration;
import java.util.List;

/**
 * What a pump's shutdown left behind.
 *
 * @param pumpName             the pump
 * @param graceful             {@code true} if every tracked coroutine finished and the queues were empty
 *                             before the deadline; {@code false} after {@code shutdownNow()} or a
 *                             missed deadline
 * @param abandonedCoroutines  tracked coroutines (children of {@link MessagePump#getScope()}) still
 *                             alive at termination, by description; they were cancelled in phase 1
 *                             and did not finish in time
 * @param abandonedTasks       posted tasks and completions accepted but never run (only when not
 *                             graceful); queued coroutine resumptions are not dropped: their
 *                             coroutines are cancelled and resume on the fallback executor
 * @param abandonedTimers      {@code schedule} tasks that had not run: not due yet, or due while a task
 *                             ran past the deadline; coroutine timers are not
 *                             counted: their coroutines are cancelled and resume on the fallback executor
 * @param took                 from {@code shutdown()} to termination
 */
public record ShutdownReport(String pumpName, boolean graceful, List<String> abandonedCoroutines,
                             List<Runnable> abandonedTasks, int abandonedTimers, Duration took) {

    public ShutdownReport {
        abandonedCoroutines = List.copyOf(abandonedCoroutines);
        abandonedTasks = List.copyOf(abandonedTasks);
    }

    /** Graceful and nothing abandoned. */
    public boolean isClean() {
        return graceful && abandonedCoroutines.isEmpty() && abandonedTasks.isEmpty() && abandonedTimers == 0;
    }

    @Override
    public String toString() {
        return "MessagePump '" + pumpName + "' terminated " + (graceful ? "gracefully" : "forcibly")
                + " in " + took.toMillis() + " ms; abandoned: " + abandonedCoroutines.size()
                + " coroutines" + (abandonedCoroutines.isEmpty() ? "" : " " + abandonedCoroutines)
                + ", " + abandonedTasks.size() + " tasks, " + abandonedTimers + " delayed tasks";
    }
}
