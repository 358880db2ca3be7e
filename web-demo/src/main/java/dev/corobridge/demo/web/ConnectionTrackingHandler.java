package dev.corobridge.demo.web;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import reactor.netty.NettyPipeline;

/**
 * One per server connection, in the Netty pipeline right after Reactor Netty's HTTP/1.1 traffic
 * handler: reports the connection's life to the {@link ConnectionTracker} (accepted, request read,
 * response written, closed), and once the service shuts down ({@link ServiceState}) marks every
 * response {@code Connection: close}, so that no client sends another request on a connection that
 * is about to go away; Reactor Netty then closes the connection after writing that response.
 *
 * <p>A request counts as answered when the last part of its final (non-1xx) response has been
 * written to the socket (or failed to be: the connection is then closing anyway). Requests that
 * Reactor Netty answers itself before they reach this handler (undecodable ones; it closes those
 * connections) keep the connection busy until it closes.
 *
 * <p>Thread-safety: confined to the connection's event loop, as Netty calls every handler method
 * there; its fields need no synchronization. Not sharable.
 */
final class ConnectionTrackingHandler extends ChannelDuplexHandler {

    /** The handler's name in the pipeline. */
    static final String NAME = "corobridge.demo.connectionTracking";

    private final ConnectionTracker tracker;
    private final ServiceState state;
    private boolean added;
    private boolean busy;
    private boolean closed;
    private boolean finalResponseStarted;

    ConnectionTrackingHandler(ConnectionTracker tracker, ServiceState state) {
        this.tracker = tracker;
        this.state = state;
    }

    /**
     * Adds a handler to a new connection's pipeline: right after Reactor Netty's HTTP/1.1 traffic
     * handler, where it sees decoded requests and the responses before that handler decides whether
     * the connection stays open; at the end of the pipeline when there is none (then it sees no
     * HTTP messages, and the connection counts as busy until it closes).
     */
    static void install(ChannelPipeline pipeline, ConnectionTracker tracker, ServiceState state) {
        ConnectionTrackingHandler handler = new ConnectionTrackingHandler(tracker, state);
        if (pipeline.get(NettyPipeline.HttpTrafficHandler) != null) {
            pipeline.addAfter(NettyPipeline.HttpTrafficHandler, NAME, handler);
        } else {
            pipeline.addLast(NAME, handler);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        added = true;
        busy = true;
        tracker.opened();
        if (!ctx.channel().isOpen()) {
            // Closed before the handler was added: there will be no channelInactive for it.
            close();
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            finalResponseStarted = false;
            if (!busy && !closed) {
                busy = true;
                tracker.requestStarted();
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ChannelPromise p = promise;
        if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            finalResponseStarted = true;
            if (state.isShuttingDown()) {
                HttpUtil.setKeepAlive(response, false);
                if (response.status().code() == 503) {
                    tracker.refused();
                }
            }
        }
        if (msg instanceof LastHttpContent && finalResponseStarted) {
            finalResponseStarted = false;
            p = promise.unvoid();
            p.addListener(written -> answered());
        }
        ctx.write(msg, p);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        close();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        close();
    }

    private void answered() {
        if (busy && !closed) {
            busy = false;
            tracker.answered();
        }
    }

    private void close() {
        if (added && !closed) {
            closed = true;
            tracker.closed(busy);
            busy = false;
        }
    }
}
