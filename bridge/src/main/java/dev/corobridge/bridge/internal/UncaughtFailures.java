package dev.corobridge.bridge.internal;

import dev.corobridge.bridge.Awaitable;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * Internal API: not for use outside corobridge; may change without notice.
 *
 * <p>Where failures nobody awaits go: the handler and the counter behind
 * {@link dev.corobridge.bridge.Tasks#setUncaughtFailureHandler} and
 * {@link dev.corobridge.bridge.Tasks#uncaughtFailures()}, here so that {@link OutcomeCell} (a
 * callback that threw) reports through them too.
 *
 * <p><b>Thread-safety.</b> Safe from any thread: the handler is a volatile reference, the count
 * an atomic counter.
 */
public final class UncaughtFailures {

    private static final System.Logger LOG = System.getLogger("dev.corobridge.bridge.Task");
    private static final AtomicLong COUNT = new AtomicLong();
    private static final BiConsumer<Awaitable<?>, Throwable> DEFAULT_HANDLER = (task, error) ->
            LOG.log(System.Logger.Level.ERROR, "Uncaught failure in " + (task == null ? "a callback" : task)
                    + (task != null && task.traceOrNull() != null ? "\n" + task.traceOrNull() : ""), error);
    private static volatile BiConsumer<Awaitable<?>, Throwable> handler = DEFAULT_HANDLER;

    private UncaughtFailures() {
    }

    /** Replaces the handler; returns the previous one. */
    public static BiConsumer<Awaitable<?>, Throwable> setHandler(BiConsumer<Awaitable<?>, Throwable> h) {
        BiConsumer<Awaitable<?>, Throwable> old = handler;
        handler = Objects.requireNonNull(h, "handler");
        return old;
    }

    /** The current handler. */
    public static BiConsumer<Awaitable<?>, Throwable> handler() {
        return handler;
    }

    /** Restores the default handler (log with the hop trace). */
    public static void resetHandler() {
        handler = DEFAULT_HANDLER;
    }

    /** How many failures were reported since start. */
    public static long count() {
        return COUNT.get();
    }

    /**
     * Counts {@code error} and hands it to the handler, with the awaitable it ended ({@code null}
     * for a callback that threw). A handler that throws is logged, never propagated.
     */
    public static void report(Awaitable<?> source, Throwable error) {
        COUNT.incrementAndGet();
        try {
            handler.accept(source, error);
        } catch (Throwable e) {
            LOG.log(System.Logger.Level.ERROR, "the uncaught-failure handler itself threw", e);
        }
    }
}
