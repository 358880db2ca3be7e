package dev.corobridge.bridge.internal;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>Marks threads that must never block — an event loop such as a pump — so that blocking waits
 * ({@code Awaitable.join()} and corobridge's other blocking calls) fail fast with a message
 * naming the fix instead of freezing the loop.
 *
 * <p>A loop calls {@link #forbidBlocking(String)} once on its own thread when it starts; the mark
 * is a thread-local, so it costs nothing on other threads and is checked only on the slow path of
 * a wait (when the awaited work is not done yet).
 */
public final class BlockingGuard {

    private static final ThreadLocal<String> NON_BLOCKING = new ThreadLocal<>();

    private BlockingGuard() {
    }

    /** Marks the calling thread as the loop {@code contextName}, which must never block. */
    public static void forbidBlocking(String contextName) {
        NON_BLOCKING.set(java.util.Objects.requireNonNull(contextName, "contextName"));
    }

    /** Removes the calling thread's mark. */
    public static void allowBlocking() {
        NON_BLOCKING.remove();
    }

    /** The context that forbids blocking on this thread, or {@code null}. */
    public static String forbiddenContext() {
        return NON_BLOCKING.get();
    }

    /**
     * Throws {@link IllegalStateException} naming {@code operation}, the context and the fix if the
     * calling thread must not block.
     */
    public static void checkMayBlock(String operation) {
        String context = NON_BLOCKING.get();
        if (context != null) {
            throw new IllegalStateException(operation + " called on the thread of '" + context + "' ("
                    + Thread.currentThread().getName() + "), which must never block: it would freeze every "
                    + "task queued there. Instead continue asynchronously with task.thenOn(" + context
                    + ", value -> ...), join from a virtual thread (Task.startVirtual(() -> ... .join())), "
                    + "or from Kotlin call the suspending await().");
        }
    }
}
