package dev.corobridge.demo.web;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.netty.NettyPipeline;

/**
 * A deadline for a request's body: once a request's headers have arrived, its body must be complete
 * within {@code demo.http.body-timeout}, or the connection is closed; if nothing of the answer was
 * sent yet, the client first gets {@code 408} (problem JSON, {@code Connection: close}). Without it
 * a client that sends its headers and a {@code Content-Length}, then trickles the body a byte at a
 * time or stops, holds a connection (and the request being read) for as long as it likes: the idle
 * timeout only covers connections with no request under way, the header timeout only the headers.
 * The deadline is for the whole body, not between reads, so trickling does not extend it. Other
 * connections are not affected. Each expiry is logged at DEBUG and counted by the
 * {@link ClientFaultSummary}.
 *
 * <p>How: one handler per connection right after Reactor Netty's HTTP codec sees decoded messages.
 * A request's head starts the deadline (unless it is the whole request), the last part of its body
 * ends it. The timer is armed lazily, at the end of a read in which the body did not complete, so a
 * request that arrives in one read (nearly all) costs no timer. Outgoing responses pass the handler
 * too, so it knows whether the answer to the request has begun. When the deadline passes, it drops
 * whatever else arrives (the application reads no more of the body), writes the 408 itself (when
 * the answer has not begun and no other request is pipelined behind this one) and closes the
 * connection, lingering ({@link LingeringClose}) so the 408 is not lost to a reset. The application,
 * still waiting for the body, sees the connection close: a client abort, logged at DEBUG.
 *
 * <p>Thread-safety: each connection's handler runs on its event loop, as does the scheduled expiry,
 * so its state needs no synchronization. Immutable as a customizer; thread-safe.
 */
public final class RequestBodyTimeout extends RequestDeadline {

    private static final Log LOG = LogFactory.getLog(RequestBodyTimeout.class);
    static final String NAME = "corobridge.demo.bodyDeadline";

    /**
     * @param timeout the longest time from a request's headers to the end of its body; positive
     * @param faults  counts the expiries
     */
    public RequestBodyTimeout(Duration timeout, ClientFaultSummary faults) {
        super(LOG, "a request body", timeout, faults);
    }

    @Override
    void install(ChannelPipeline pipeline) {
        pipeline.addAfter(NettyPipeline.HttpCodec, NAME, new Deadline(this));
    }

    /** The deadline of one connection. */
    static final class Deadline extends ChannelDuplexHandler {
        private static final byte[] TIMEOUT_BODY = ("{\"type\":\"/problems/request-timeout\",\"title\":\"Request Timeout\","
                + "\"status\":408,\"detail\":\"the request body did not arrive in time\",\"instance\":null}")
                .getBytes(StandardCharsets.UTF_8);

        private final RequestDeadline owner;
        /** A request's body is being read; {@link #dueAt} is when it must be complete. */
        private boolean bodyUnderWay;
        private long dueAt;
        private ScheduledFuture<?> expiry;
        /** The deadline passed: the connection is closing, nothing read counts any more. */
        private boolean expired;
        /** Requests read whose final response has not been written whole (more than 1: pipelined). */
        private int unanswered;
        /** The final response to the oldest unanswered request has begun. */
        private boolean answerBegun;

        Deadline(RequestDeadline owner) {
            this.owner = owner;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (expired) {
                ReferenceCountUtil.release(msg);
                return;
            }
            if (msg instanceof HttpRequest request && request.decoderResult().isSuccess()) {
                unanswered++;
                if (!(msg instanceof LastHttpContent)) {
                    bodyUnderWay = true;
                    dueAt = System.nanoTime() + owner.timeoutNanos;
                }
            }
            if (msg instanceof LastHttpContent) {
                bodyUnderWay = false;
                cancel();
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (bodyUnderWay && expiry == null && !expired) {
                expiry = ctx.executor().schedule(() -> expire(ctx), dueAt - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            ctx.fireChannelReadComplete();
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof HttpResponse r && r.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
                answerBegun = true;
            }
            if (msg instanceof LastHttpContent && answerBegun) {
                answerBegun = false;
                unanswered = Math.max(0, unanswered - 1);
            }
            ctx.write(msg, promise);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            cancel();
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            cancel();
        }

        private void cancel() {
            expiry = RequestDeadline.cancel(expiry);
        }

        private void expire(ChannelHandlerContext ctx) {
            expiry = null;
            if (!bodyUnderWay || expired || !ctx.channel().isActive()) {
                return;
            }
            expired = true;
            boolean answer = unanswered == 1 && !answerBegun;
            owner.expired(ctx, answer ? " with 408" : "");
            if (!answer) {
                ctx.close(); // an answer began (or another request waits for one): no second status can be sent
                return;
            }
            FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                    HttpResponseStatus.REQUEST_TIMEOUT, Unpooled.wrappedBuffer(TIMEOUT_BODY));
            response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/problem+json")
                    .setInt(HttpHeaderNames.CONTENT_LENGTH, TIMEOUT_BODY.length)
                    .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            answerBegun = true;
            ctx.writeAndFlush(response).addListener((ChannelFutureListener) written -> LingeringClose.of(ctx));
        }
    }
}
