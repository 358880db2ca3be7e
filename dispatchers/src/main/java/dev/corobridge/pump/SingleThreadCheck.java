package dev.corobridge.pump;

/**
 * For {@code assert}s in the pump's single-threaded parts (the timer heap, the latency
 * histogram), which do not know the pump: the first thread that asks becomes the owner, and every
 * later caller is compared with it. Used only inside {@code assert} statements, so it costs
 * nothing when assertions are off.
 *
 * <p><b>Thread-safety.</b> Deliberately unsynchronised: the owner always sees its own write, so a
 * correct program never fails the check; a second thread usually sees the owner and fails it, and
 * may, rarely, miss the violation (never report one that did not happen).
 */
final class SingleThreadCheck {

    private final String what;
    private Thread owner;

    /** @param what the confined object, for the message */
    SingleThreadCheck(String what) {
        this.what = what;
    }

    /** Whether the caller is the owner; the first caller becomes it. */
    boolean isOwner() {
        Thread me = Thread.currentThread();
        if (owner == null) {
            owner = me;
        }
        return owner == me;
    }

    /** The message of a failed check by the calling thread, for {@code operation}. */
    String violation(String operation) {
        Thread o = owner;
        return what + "." + operation + " on thread '" + Thread.currentThread().getName()
                + "', but it is confined to thread '" + (o == null ? "?" : o.getName()) + "' (the pump thread)";
    }
}
