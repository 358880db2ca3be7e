package dev.corobridge.bridge;

import dev.corobridge.bridge.internal.UncaughtFailures;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Global settings of the task runtime: the handler for failures nobody awaits (detached tasks,
 * throwing callbacks) and whether tasks keep hop traces.
 *
 * <p><b>Uncaught failures are never silently lost.</b> The default handler logs them, with the
 * task's hop trace, through {@link System.Logger}; {@link #uncaughtFailures()} counts them.
 *
 * <p><b>Threads.</b> {@link Task#withTimeout} times out on one shared daemon thread,
 * {@code corobridge-task-timer}. Loading these classes starts no thread: the first timeout starts
 * it, and it ends one second after the last pending timeout fired or was cancelled (a later
 * timeout starts a new one), as kotlinx's {@code DefaultExecutor} thread does.
 */
public final class Tasks {

    private static volatile boolean tracing = !"false".equalsIgnoreCase(System.getProperty("corobridge.trace", "true"));

    /** How long the timer thread waits with no timeout pending before it ends. */
    private static final long TIMER_KEEP_ALIVE_MILLIS = 1_000;

    /** Daemon timer for task timeouts; its thread lives only while timeouts are pending (see the class comment). */
    static final ScheduledThreadPoolExecutor TIMER = newTimer();

    private Tasks() {
    }

    /**
     * Replaces the handler of uncaught failures (detached tasks that failed, callbacks that threw);
     * the task is {@code null} for a callback. Returns the previous handler.
     */
    public static BiConsumer<Awaitable<?>, Throwable> setUncaughtFailureHandler(BiConsumer<Awaitable<?>, Throwable> h) {
        return UncaughtFailures.setHandler(h);
    }

    /** The current handler of uncaught failures. */
    public static BiConsumer<Awaitable<?>, Throwable> uncaughtFailureHandler() {
        return UncaughtFailures.handler();
    }

    /** Restores the default handler (log with hop trace). */
    public static void resetUncaughtFailureHandler() {
        UncaughtFailures.resetHandler();
    }

    /** How many uncaught failures were reported since start. */
    public static long uncaughtFailures() {
        return UncaughtFailures.count();
    }

    /** Turns hop tracing of new tasks on or off (default on; {@code -Dcorobridge.trace=false}). */
    public static void setTracing(boolean on) {
        tracing = on;
    }

    /** Whether new tasks keep hop traces. */
    public static boolean isTracing() {
        return tracing;
    }

    static void reportUncaught(Throwable error) {
        UncaughtFailures.report(null, error);
    }

    static void report(Awaitable<?> task, Throwable error) {
        UncaughtFailures.report(task, error);
    }

    private static ScheduledThreadPoolExecutor newTimer() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1,
                Thread.ofPlatform().name("corobridge-task-timer").daemon(true).factory());
        t.setRemoveOnCancelPolicy(true); // a finished task's timeout leaves the queue at once
        // The last thread stays while the queue holds a timeout (ThreadPoolExecutor.getTask), so
        // only an idle timer loses its thread; a new timeout starts one (ensurePrestart).
        t.setKeepAliveTime(TIMER_KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS);
        t.allowCoreThreadTimeOut(true);
        return t;
    }
}
