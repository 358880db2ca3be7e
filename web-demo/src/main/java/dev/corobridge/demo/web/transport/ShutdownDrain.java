package dev.corobridge.demo.web.transport;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * The first step of the service's shutdown: keeps the web server listening and answering while its
 * connections drain, then stops it accepting new ones, so that every connection a client gets
 * established is answered and every later one is refused outright: no client is left with a
 * connection reset and a request it cannot know the fate of.
 *
 * <p><b>Why.</b> Reactor Netty's graceful shutdown (Boot's {@code server.shutdown=graceful}) closes
 * the listening socket and every connection that carries no request in progress at once, and the
 * kernel answers what it held for them with a reset: connections accepted but not yet read,
 * connections still in the listen backlog or in their handshake, and keep-alive connections whose
 * client is sending its next request at that moment. Their requests were never applied, but their
 * clients cannot know that.
 *
 * <p><b>What it does.</b> Its {@link #stop(Runnable)} runs in a phase before the web server's
 * graceful shutdown ({@link #PHASE}), once {@link ServiceState} says the service is shutting down
 * (so every {@code /api} request is refused with a 503 problem with {@code Retry-After}, and every
 * response carries {@code Connection: close}, see {@link ExchangeHandler}). Two steps:
 * <ol>
 * <li>Accepting: new connections are still accepted and answered. It waits until the
 *     {@link ConnectionTracker} reports no busy connection and no activity at all for the quiet
 *     period, or until the drain timeout less a reserve (twice the quiet period, at most half the
 *     timeout). Clients that were told to go away and do as told are gone by then; clients that
 *     come back at once keep it busy until then.</li>
 * <li>Not accepting: it stops the {@link ListeningSocket} from accepting (new connection attempts
 *     get no answer, and are refused once the socket closes), then waits again until no connection
 *     is busy and nothing happened for the quiet period, counted from that moment (handshakes under
 *     way complete meanwhile and are answered), or until the drain timeout.</li>
 * </ol>
 * Only then does the graceful shutdown close the listening socket, whose queue is empty, and the
 * idle connections.
 *
 * <p><b>What it cannot do.</b> A request a client sends on an idle keep-alive connection in the
 * instant the graceful shutdown closes that connection is still reset by the kernel; so is a
 * handshake whose last segment arrives more than a quiet period after accepting stopped (a
 * network that slow loses more than this). On a transport without socket filters (NIO, or not
 * Linux) the socket cannot stop accepting before it closes, and connections still in its queue
 * then are reset, as without the second step.
 *
 * <p>Thread-safety: Spring calls the lifecycle methods from one thread; the drain runs on its own
 * thread ({@code demo-shutdown-drain}), and the running flag is volatile.
 */
public final class ShutdownDrain implements SmartLifecycle {

    /** Above (so: stopped before) the web server's graceful shutdown phase. */
    public static final int PHASE = WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE + 512;

    private static final Log LOG = LogFactory.getLog(ShutdownDrain.class);

    /** How a drain ended. */
    public enum Outcome {
        /** No connection busy and no activity for the quiet period. */
        DRAINED,
        /** The drain timeout passed first. */
        TIMED_OUT
    }

    /**
     * What the drain does next, decided at one instant: end with an outcome, or wait until a clock
     * reading; with {@code untilIdle}, a wait that also ends as soon as no connection is busy.
     */
    record Step(Outcome outcome, long waitUntilNanos, boolean untilIdle) {
        static Step end(Outcome outcome) {
            return new Step(outcome, 0, false);
        }

        static Step sleepUntil(long nanos) {
            return new Step(null, nanos, false);
        }

        static Step awaitIdleUntil(long nanos) {
            return new Step(null, nanos, true);
        }

        boolean done() {
            return outcome != null;
        }
    }

    private final ServiceState state;
    private final ConnectionTracker tracker;
    private final ListeningSocket listener;
    private final Duration quietPeriod;
    private final Duration timeout;
    private volatile boolean running;

    /**
     * @param quietPeriod how long no connection may be busy and nothing may happen before the drain ends
     * @param timeout     the drain ends after this long at most
     */
    public ShutdownDrain(ServiceState state, ConnectionTracker tracker, ListeningSocket listener, Duration quietPeriod,
                         Duration timeout) {
        this.state = Objects.requireNonNull(state, "state");
        this.tracker = Objects.requireNonNull(tracker, "tracker");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.quietPeriod = Objects.requireNonNull(quietPeriod, "quietPeriod");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (quietPeriod.isNegative() || quietPeriod.isZero()) {
            throw new IllegalArgumentException("the quiet period must be positive, was " + quietPeriod);
        }
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("the drain timeout must not be negative, was " + timeout);
        }
    }

    /**
     * The next step at clock reading {@code now}: done when nothing is busy and the last activity is
     * at least the quiet period ago, or when the deadline has passed; otherwise sleep until the quiet
     * period would end (nothing busy: the next step looks again, as activity may have moved it), or
     * wait until no connection is busy, at most until the deadline (something busy). Readings are
     * compared by difference, as {@link System#nanoTime()} requires.
     */
    static Step step(long now, int busy, long lastActivity, long quietNanos, long deadline) {
        if (busy == 0 && now - lastActivity >= quietNanos) {
            return Step.end(Outcome.DRAINED);
        }
        if (now - deadline >= 0) {
            return Step.end(Outcome.TIMED_OUT);
        }
        if (busy == 0) {
            long quietAt = lastActivity + quietNanos;
            return Step.sleepUntil(quietAt - deadline < 0 ? quietAt : deadline);
        }
        return Step.awaitIdleUntil(deadline);
    }

    /**
     * Drains: returns when the connections are quiet after the listening socket stopped accepting,
     * or when the timeout has passed.
     *
     * @throws InterruptedException if the calling thread was interrupted
     */
    public Outcome drain() throws InterruptedException {
        long start = tracker.nanoTime();
        long deadline = start + timeout.toNanos();
        long quiet = quietPeriod.toNanos();
        long reserve = Math.min(timeout.toNanos() / 2, 2 * quiet);
        awaitQuiet(deadline - reserve, tracker.lastActivityNanos());
        long stoppedAt = tracker.nanoTime();
        if (listener.stopAccepting()) {
            LOG.info("Shutdown: stopped accepting new connections after " + TimeUnit.NANOSECONDS.toMillis(stoppedAt - start)
                    + " ms");
        } else {
            LOG.info("Shutdown: this transport cannot stop accepting connections before the listening socket closes; "
                    + "connections still queued for it then are reset");
        }
        return awaitQuiet(deadline, stoppedAt);
    }

    /** Waits until the connections are quiet (activity counted from {@code since} at the earliest) or {@code deadline}. */
    private Outcome awaitQuiet(long deadline, long since) throws InterruptedException {
        long quiet = quietPeriod.toNanos();
        while (true) {
            long last = tracker.lastActivityNanos();
            Step s = step(tracker.nanoTime(), tracker.busy(), last - since < 0 ? since : last, quiet, deadline);
            if (s.done()) {
                return s.outcome();
            }
            if (s.untilIdle()) {
                tracker.awaitIdle(s.waitUntilNanos());
            } else {
                TimeUnit.NANOSECONDS.sleep(s.waitUntilNanos() - tracker.nanoTime());
            }
        }
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Drains on the calling thread. */
    @Override
    public void stop() {
        shuttingDown();
        drainAndLog();
    }

    /** Before the web server's graceful shutdown. */
    @Override
    public int getPhase() {
        return PHASE;
    }

    /** Drains on a thread of its own and calls back when done. */
    @Override
    public void stop(Runnable callback) {
        shuttingDown();
        Thread.ofPlatform().name("demo-shutdown-drain").daemon(true).start(() -> {
            try {
                drainAndLog();
            } finally {
                callback.run();
            }
        });
    }

    /** Not paused with a cached test context: a drain is one-way. */
    @Override
    public boolean isPauseable() {
        return false;
    }

    private void shuttingDown() {
        running = false;
        state.shutDown();
    }

    private void drainAndLog() {
        long started = System.nanoTime();
        if (LOG.isInfoEnabled()) {
            LOG.info("Shutdown: draining " + tracker.open() + " connections (" + tracker.busy() + " busy) until they are quiet for "
                    + quietPeriod.toMillis() + " ms, at most " + timeout.toMillis() + " ms; new requests get 503");
        }
        try {
            Outcome outcome = drain();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            if (outcome == Outcome.DRAINED) {
                LOG.info("Shutdown: connections drained in " + ms + " ms (" + tracker.refusedCount() + " requests refused with 503, "
                        + tracker.open() + " idle connections left to close)");
            } else {
                LOG.warn("Shutdown: drain timed out after " + ms + " ms with " + tracker.busy() + " busy of " + tracker.open()
                        + " open connections (" + tracker.refusedCount() + " requests refused with 503); the web server's"
                        + " graceful shutdown takes over");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.warn("Shutdown: drain interrupted with " + tracker.busy() + " busy connections");
        }
    }

    @Override
    public String toString() {
        return "ShutdownDrain[quiet " + quietPeriod + ", timeout " + timeout + ", " + tracker + "]";
    }
}
