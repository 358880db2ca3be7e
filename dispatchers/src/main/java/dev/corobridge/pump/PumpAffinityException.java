package dev.corobridge.pump;

/**
 * Pump-owned state was touched from a thread that is not the pump's thread.
 *
 * <p>The message names both threads and the fix: move the access onto the pump with
 * {@code pump.execute(...)}, {@code Task.start(pump, ...)} or {@code withContext(pump.dispatcher)}.
 */
public class PumpAffinityException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String pumpName;

    PumpAffinityException(String pumpName, Thread pumpThread, Thread caller) {
        super(message(pumpName, pumpThread, caller));
        this.pumpName = pumpName;
    }

    /** The name of the pump whose affinity was violated. */
    public String pumpName() {
        return pumpName;
    }

    private static String message(String pumpName, Thread pumpThread, Thread caller) {
        String owner = pumpThread == null
                ? "the pump has no thread yet (it was not started)"
                : "it belongs to the pump thread " + describe(pumpThread);
        return "MessagePump '" + pumpName + "' state touched from thread " + describe(caller) + "; "
                + owner + ". Move the access onto the pump: pump.execute(...), Task.start(pump, ...) or, "
                + "in Kotlin, withContext(pump.dispatcher) { ... }.";
    }

    private static String describe(Thread t) {
        return "'" + t.getName() + "' (tid " + t.threadId() + (t.isVirtual() ? ", virtual" : "") + ")";
    }
}
