package dev.corobridge.pump;

/**
 * A pump's loop died: an error escaped the loop's own machinery (not a task, timer or completion:
 * their failures go to the uncaught-exception handler and the loop goes on), so the pump
 * terminated without an orderly shutdown. {@link MessagePump#termination()} and the futures
 * returned by {@code shutdown()} complete exceptionally with it, and
 * {@link MessagePump#awaitTermination} returns {@code false}.
 *
 * <p>The pump terminated all the same: posts are rejected, queued coroutine resumptions and
 * coroutine timers were sent to the fallback executor as after a forced shutdown, as far as that
 * still worked. {@link #report()} lists what was abandoned; it is {@code null} if even that
 * settling failed (its error is then a suppressed exception of this one). The error that killed
 * the loop is the {@linkplain #getCause() cause}.
 */
public class PumpLoopFailedException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String pumpName;
    private final transient ShutdownReport report;

    PumpLoopFailedException(String pumpName, ShutdownReport report, Throwable cause) {
        super("MessagePump '" + pumpName + "': the loop died from " + cause + " and the pump terminated without"
                + " an orderly shutdown" + (report == null ? "" : "; " + report), cause);
        this.pumpName = pumpName;
        this.report = report;
    }

    /** The name of the pump whose loop died. */
    public String pumpName() {
        return pumpName;
    }

    /** What the pump abandoned as it terminated, or {@code null} if settling failed too. */
    public ShutdownReport report() {
        return report;
    }
}
