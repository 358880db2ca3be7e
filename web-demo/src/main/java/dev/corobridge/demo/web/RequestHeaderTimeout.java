package dev.corobridge.demo.web;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.netty.NettyPipeline;

/**
 * A deadline for a request's headers: once the first byte of a request arrives, its request line
 * and headers must be complete within {@code demo.http.header-timeout}, or the server answers
 * {@code 408} (problem JSON, {@code Connection: close}) and closes the connection. Without it a
 * client that sends its headers a byte at a time (slowloris) holds a connection for as long as it
 * likes, since every byte resets the idle timeout. Connections with no request under way are the
 * idle timeout's business ({@code server.netty.idle-timeout}), bodies {@link RequestBodyTimeout}'s.
 * Each expiry is logged at DEBUG and counted by the {@link ClientFaultSummary}.
 *
 * <p>How: two handlers per connection share one state. One sits before Reactor Netty's HTTP codec
 * and sees raw bytes: the first byte while no request is under way starts the deadline. The other
 * sits after the codec and sees decoded messages: a decoded request (its headers complete) cancels
 * the deadline and marks a request under way, the end of a final response ends it. When the
 * deadline passes, the first handler writes the 408 as raw bytes (the codec is mid-request and
 * cannot be used) and closes the connection.
 *
 * <p>Thread-safety: each connection's handlers run on its event loop, as does the scheduled expiry,
 * so the shared state needs no synchronization. Immutable as a customizer; thread-safe.
 */
public final class RequestHeaderTimeout extends RequestDeadline {

    private static final Log LOG = LogFactory.getLog(RequestHeaderTimeout.class);
    static final String BYTES = "corobridge.demo.headerDeadline.bytes";
    static final String REQUESTS = "corobridge.demo.headerDeadline.requests";

    /**
     * @param timeout the longest time from a request's first byte to the end of its headers; positive
     * @param faults  counts the expiries
     */
    public RequestHeaderTimeout(Duration timeout, ClientFaultSummary faults) {
        super(LOG, "request headers", timeout, faults);
    }

    @Override
    void install(ChannelPipeline pipeline) {
        Deadline deadline = new Deadline(this);
        pipeline.addBefore(NettyPipeline.HttpCodec, BYTES, deadline.bytes);
        pipeline.addAfter(NettyPipeline.HttpCodec, REQUESTS, deadline.requests);
    }

    /** The state of one connection and its two handlers. */
    private static final class Deadline {
        private static final byte[] TIMEOUT_RESPONSE = response();

        final RequestDeadline owner;
        boolean requestUnderWay;
        boolean finalResponseStarted;
        ScheduledFuture<?> expiry;

        final ChannelInboundHandlerAdapter bytes = new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (!requestUnderWay && expiry == null) {
                    expiry = ctx.executor().schedule(() -> expire(ctx), owner.timeoutNanos, TimeUnit.NANOSECONDS);
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                cancel();
                ctx.fireChannelInactive();
            }
        };

        final ChannelDuplexHandler requests = new ChannelDuplexHandler() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpRequest) {
                    cancel();
                    requestUnderWay = true;
                }
                ctx.fireChannelRead(msg);
            }

            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                if (msg instanceof HttpResponse r && r.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
                    finalResponseStarted = true;
                }
                if (msg instanceof LastHttpContent && finalResponseStarted) {
                    finalResponseStarted = false;
                    requestUnderWay = false; // the next byte starts the next request's deadline
                }
                ctx.write(msg, promise);
            }
        };

        Deadline(RequestDeadline owner) {
            this.owner = owner;
        }

        private void cancel() {
            expiry = RequestDeadline.cancel(expiry);
        }

        private void expire(ChannelHandlerContext ctx) {
            expiry = null;
            if (requestUnderWay || !ctx.channel().isActive()) {
                return;
            }
            owner.expired(ctx, "");
            ctx.writeAndFlush(Unpooled.wrappedBuffer(TIMEOUT_RESPONSE)).addListener(ChannelFutureListener.CLOSE);
        }

        private static byte[] response() {
            String body = "{\"type\":\"/problems/request-timeout\",\"title\":\"Request Timeout\",\"status\":408,"
                    + "\"detail\":\"the request's headers did not arrive in time\",\"instance\":null}";
            byte[] json = body.getBytes(StandardCharsets.UTF_8);
            String head = "HTTP/1.1 408 Request Timeout\r\nContent-Type: application/problem+json\r\nContent-Length: "
                    + json.length + "\r\nConnection: close\r\n\r\n";
            byte[] h = head.getBytes(StandardCharsets.US_ASCII);
            byte[] out = new byte[h.length + json.length];
            System.arraycopy(h, 0, out, 0, h.length);
            System.arraycopy(json, 0, out, h.length, json.length);
            return out;
        }
    }
}
