package dev.corobridge.demo.web;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledFuture;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import org.apache.commons.logging.Log;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/**
 * What the request deadlines ({@link RequestHeaderTimeout}, {@link RequestBodyTimeout}) share: a
 * positive timeout, handlers installed around Reactor Netty's HTTP/1.1 codec of every new
 * connection (h2c connections have none: nothing to time there), and how an expiry is reported
 * (a DEBUG line, one fault for the {@link ClientFaultSummary}).
 *
 * <p>Thread-safety: immutable; {@link #expired} is called on a connection's event loop.
 */
abstract class RequestDeadline implements NettyServerCustomizer {

    private final Log log;
    private final String late;
    final long timeoutNanos;
    final ClientFaultSummary faults;

    /**
     * @param what    what must arrive in time, for messages ("request headers", "a request body")
     * @param timeout how long it may take; positive
     */
    RequestDeadline(Log log, String what, Duration timeout, ClientFaultSummary faults) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the " + what + " timeout must be positive, was " + timeout);
        }
        this.log = log;
        this.late = what + " that did not arrive within " + timeout.toMillis() + " ms";
        this.timeoutNanos = timeout.toNanos();
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    @Override
    public final HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, remoteAddress) -> {
            ChannelPipeline pipeline = channel.pipeline();
            if (pipeline.get(NettyPipeline.HttpCodec) != null) {
                install(pipeline);
            }
        });
    }

    /** Adds this deadline's handlers for one new connection, around {@link NettyPipeline#HttpCodec}. */
    abstract void install(ChannelPipeline pipeline);

    /** Cancels {@code expiry} if there is one; returns {@code null}, for {@code expiry = cancel(expiry)}. */
    static ScheduledFuture<?> cancel(ScheduledFuture<?> expiry) {
        if (expiry != null) {
            expiry.cancel(false);
        }
        return null;
    }

    /** Reports that {@code ctx}'s connection missed the deadline and is being closed ({@code how}: e.g. " with 408"). */
    final void expired(ChannelHandlerContext ctx, String how) {
        if (log.isDebugEnabled()) {
            log.debug("Connection from " + ctx.channel().remoteAddress() + " closed" + how + ": " + late);
        }
        faults.record(ctx.channel(), late);
    }
}
