package dev.corobridge.spring;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Stops one corobridge context (the pump or the ring pool) at its {@link #getPhase() phase} of the
 * application context's shutdown, through its two-phase shutdown.
 *
 * <p>Phases: Boot starts the web server at {@code WebServerStartStopLifecycle} (phase
 * {@code DEFAULT_PHASE - 2048}) and drains it at {@code WebServerGracefulShutdownLifecycle} (phase
 * {@code DEFAULT_PHASE - 1024}). Lifecycles start in ascending and stop in descending phase order,
 * so {@link #PUMP_PHASE} and {@link #RING_PHASE} (both lower) start before the server accepts
 * requests and stop only after graceful shutdown has drained it and the server has stopped: first
 * the pump (whose coroutines may still finish ring operations in their {@code finally} blocks), then
 * the rings.
 *
 * <p>The pump and the pool start running when their beans are created (before any lifecycle
 * starts); {@link #start()} only marks them running. {@link #stop(Runnable)} starts the shutdown and
 * reports back when it has terminated; Spring waits for that up to
 * {@code spring.lifecycle.timeout-per-shutdown-phase}, so the grace period handed to the shutdown is
 * capped at 90% of that timeout. The beans' {@code close()} destroy methods cover a context that
 * fails before its lifecycles started (they do nothing more after a completed stop).
 *
 * <p>Not restartable: a stopped pump or pool stays terminated, so {@link #start()} after a stop
 * (the application context's {@code stop()} then {@code start()}, as a checkpoint/restore does)
 * throws {@link IllegalStateException} instead of reporting a terminated context as running. A
 * pause of the context ({@code pause()}, then {@code restart()}: Spring's test context cache
 * pauses the cached contexts not in use) does not stop them ({@link #isPauseable()}).
 */
public final class CorobridgeLifecycle implements SmartLifecycle {

    /** Phase of the pump's lifecycle: below the web server's start/stop phase. */
    public static final int PUMP_PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    /** Phase of the ring pool's lifecycle: below the pump's, so it stops after the pump. */
    public static final int RING_PHASE = PUMP_PHASE - 1024;

    private static final Log LOG = LogFactory.getLog(CorobridgeLifecycle.class);

    private final String what;
    private final int phase;
    private final Duration grace;
    private final Function<Duration, CompletableFuture<?>> shutdown;
    private volatile boolean running;
    /** A stop has shut the context down: it cannot run again. */
    private volatile boolean stopped;

    /**
     * @param what         what is stopped, for log lines
     * @param phase        the lifecycle phase
     * @param grace        the configured grace period of the shutdown
     * @param phaseTimeout {@code spring.lifecycle.timeout-per-shutdown-phase}
     * @param shutdown     starts the shutdown with a grace period; its future completes at termination
     */
    public CorobridgeLifecycle(String what, int phase, Duration grace, Duration phaseTimeout,
                               Function<Duration, CompletableFuture<?>> shutdown) {
        this.what = Objects.requireNonNull(what, "what");
        this.phase = phase;
        this.grace = effectiveGrace(grace, phaseTimeout);
        this.shutdown = Objects.requireNonNull(shutdown, "shutdown");
    }

    /** The grace period actually used: {@code grace}, at most 90% of {@code phaseTimeout}. */
    static Duration effectiveGrace(Duration grace, Duration phaseTimeout) {
        Duration cap = phaseTimeout.minus(phaseTimeout.dividedBy(10));
        return grace.compareTo(cap) > 0 ? cap : grace;
    }

    /** The grace period handed to the shutdown. */
    public Duration getGrace() {
        return grace;
    }

    @Override
    public void start() {
        if (stopped) {
            // A pump or pool that was shut down does not come back, and the beans that hold it
            // cannot be given a new one: say so instead of reporting a dead context as running.
            throw new IllegalStateException(what + " was shut down by the application context's stop() and cannot "
                    + "be started again; close the context and create a new one (a checkpoint/restore or a stop/start "
                    + "cycle of one context is not supported)");
        }
        running = true;
    }

    @Override
    public void stop() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        stop(() -> done.complete(null));
        try {
            done.get(grace.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn(what + " did not terminate in time", e);
        }
    }

    @Override
    public void stop(Runnable callback) {
        running = false;
        stopped = true;
        CompletableFuture<?> termination;
        try {
            termination = shutdown.apply(grace);
        } catch (RuntimeException e) {
            LOG.warn("Could not shut down " + what, e);
            callback.run();
            return;
        }
        termination.whenComplete((result, error) -> {
            try {
                if (error != null) {
                    LOG.warn(what + " shut down with an error", error);
                } else if (LOG.isInfoEnabled()) {
                    LOG.info(what + " shut down" + (result == null ? "" : ": " + result));
                }
            } finally {
                callback.run();
            }
        });
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Not stopped by a pause of the application context (what Spring's test context cache does to a
     * cached context while another one is in use): a stopped pump or pool cannot run again, and an
     * idle one costs nothing. The context's close and {@code stop()} still shut it down.
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public int getPhase() {
        return phase;
    }

    @Override
    public String toString() {
        return "CorobridgeLifecycle[" + what + ", phase " + phase + ", grace " + grace + "]";
    }
}
