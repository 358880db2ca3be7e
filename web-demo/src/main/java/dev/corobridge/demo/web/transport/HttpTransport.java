package dev.corobridge.demo.web.transport;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.http.server.HttpServer;

import dev.corobridge.demo.changelog.RateLimitedWarning;

/**
 * The service's rules for its HTTP/1.1 connections, below Spring: puts an {@link ExchangeHandler}
 * on every connection the Reactor Netty server accepts, which answers undecodable requests with
 * problem JSON, enforces the deadlines for a request's headers ({@code demo.http.header-timeout})
 * and body ({@code demo.http.body-timeout}), and reports each connection's life to the
 * {@link ConnectionTracker} of the shutdown drain, refuses a connection beyond {@code demo.http.max-connections}
 * (503, closed), and adds each to the budget of answers its client
 * has not read ({@link UnsentOutput}). Refusals, expiries and connections closed for that budget
 * are counted by the {@link ClientFaultSummary}.
 *
 * <p>Immutable; thread-safe. Its fields are the handlers' shared settings.
 */
public final class HttpTransport implements NettyServerCustomizer {

    private static final Log LOG = LogFactory.getLog(HttpTransport.class);

    final ConnectionTracker tracker;
    final ServiceState state;
    final ClientFaultSummary faults;
    /** The budget of answers not read yet, or null: none (unit tests of the handler). */
    final UnsentOutput unsent;
    /** The most connections at once, or 0: no limit. */
    final int maxConnections;
    /** A WARN line at most once a minute while connections are refused for the limit. */
    final RateLimitedWarning refusedConnections = new RateLimitedWarning(LOG, 1, TimeUnit.MINUTES);
    final long headerTimeoutNanos;
    final long bodyTimeoutNanos;
    /** How a late request is described in the log and the fault summary. */
    final String lateHeaders;
    final String lateBody;

    /**
     * @param headerTimeout the longest time from a request's first byte to the end of its headers; positive
     * @param bodyTimeout   the longest time from a request's headers to the end of its body; positive
     */
    public HttpTransport(ConnectionTracker tracker, ServiceState state, ClientFaultSummary faults, Duration headerTimeout,
                         Duration bodyTimeout) {
        this(tracker, state, faults, null, 0, headerTimeout, bodyTimeout);
    }

    /**
     * @param unsent         the budget of answers written but not read yet, which every connection is
     *                       added to; null: none
     * @param maxConnections the most connections at once (one more is answered 503 and closed); 0: no limit
     * @param headerTimeout  the longest time from a request's first byte to the end of its headers; positive
     * @param bodyTimeout    the longest time from a request's headers to the end of its body; positive
     */
    public HttpTransport(ConnectionTracker tracker, ServiceState state, ClientFaultSummary faults, UnsentOutput unsent,
                         int maxConnections, Duration headerTimeout, Duration bodyTimeout) {
        if (maxConnections < 0) {
            throw new IllegalArgumentException("maxConnections must be 0 (no limit) or positive, was " + maxConnections);
        }
        this.unsent = unsent;
        this.maxConnections = maxConnections;
        this.tracker = Objects.requireNonNull(tracker, "tracker");
        this.state = Objects.requireNonNull(state, "state");
        this.faults = Objects.requireNonNull(faults, "faults");
        this.headerTimeoutNanos = positive("header", headerTimeout);
        this.bodyTimeoutNanos = positive("body", bodyTimeout);
        this.lateHeaders = "request headers that did not arrive within " + headerTimeout.toMillis() + " ms";
        this.lateBody = "a request body that did not arrive within " + bodyTimeout.toMillis() + " ms";
    }

    private static long positive(String what, Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the " + what + " timeout must be positive, was " + timeout);
        }
        return timeout.toNanos();
    }

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, remoteAddress) -> ExchangeHandler.install(channel.pipeline(), this));
    }

    @Override
    public String toString() {
        return "HttpTransport[" + lateHeaders + ", " + lateBody + ", " + tracker + "]";
    }
}
