package dev.corobridge.demo.web;

import java.util.Objects;

import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.http.server.HttpServer;

/**
 * Puts a {@link ConnectionTrackingHandler} on every connection the Reactor Netty server accepts.
 * Immutable, thread-safe.
 */
public final class ConnectionTrackingCustomizer implements NettyServerCustomizer {

    private final ConnectionTracker tracker;
    private final ServiceState state;

    public ConnectionTrackingCustomizer(ConnectionTracker tracker, ServiceState state) {
        this.tracker = Objects.requireNonNull(tracker, "tracker");
        this.state = Objects.requireNonNull(state, "state");
    }

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnChannelInit((observer, channel, remoteAddress) ->
                ConnectionTrackingHandler.install(channel.pipeline(), tracker, state));
    }
}
