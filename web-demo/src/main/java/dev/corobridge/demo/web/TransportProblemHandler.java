package dev.corobridge.demo.web;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.NettyPipeline;

/**
 * Answers the requests that the HTTP decoder cannot read with problem JSON, as every other client
 * mistake is answered: {@code 414} for a request line over the decoder's limit, {@code 431} for
 * headers over it, {@code 400} for anything else that is not HTTP/1.1 (a bad or doubled
 * {@code Content-Length}, a malformed header, a forbidden byte, bytes of another protocol). Each
 * gets {@code Connection: close} and the connection closes (lingering, so the answer is not lost to
 * a reset): after such a request the decoder cannot tell where the next one starts. Logged at DEBUG
 * only: a client mistake.
 *
 * <p>Why a handler of its own: Reactor Netty answers these itself, before Spring sees the request,
 * with an empty body and no {@code Content-Type}. This handler sits between the HTTP codec and
 * Reactor Netty's HTTP handler, takes a request whose decoding failed off the pipeline and answers
 * it, so Reactor Netty never sees it.
 *
 * <p>What it cannot do: a failure inside a chunked body (a bad chunk size) comes after the request
 * was handed to the application and its answer may have begun; those keep Reactor Netty's own
 * {@code 400} (see API.md).
 *
 * <p>Thread-safety: one per connection, called on its event loop only. Not sharable.
 */
public final class TransportProblemHandler extends ChannelInboundHandlerAdapter {

    private static final Log LOG = LogFactory.getLog(TransportProblemHandler.class);
    static final String NAME = "corobridge.demo.transportProblems";
    /** Longest wait for the client to close after the answer (see {@link #lingeringClose}). */
    private static final Duration LINGER = Duration.ofSeconds(2);

    private boolean refused;

    private TransportProblemHandler() {
    }

    /** Puts a handler on every connection the server accepts. */
    public static NettyServerCustomizer customizer() {
        return server -> server.doOnChannelInit((observer, channel, remoteAddress) -> install(channel.pipeline()));
    }

    /** Adds a handler to a new connection's pipeline, right after the HTTP codec (if there is one). */
    static void install(ChannelPipeline pipeline) {
        if (pipeline.get(NettyPipeline.HttpCodec) != null) {
            pipeline.addAfter(NettyPipeline.HttpCodec, NAME, new TransportProblemHandler());
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg); // the connection is closing: nothing after the bad request counts
            return;
        }
        if (msg instanceof HttpRequest request && request.decoderResult().isFailure()) {
            refused = true;
            Throwable cause = request.decoderResult().cause();
            ReferenceCountUtil.release(msg);
            refuse(ctx, cause);
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private static void refuse(ChannelHandlerContext ctx, Throwable cause) {
        HttpResponseStatus status;
        String detail;
        if (cause instanceof TooLongHttpLineException) {
            status = HttpResponseStatus.REQUEST_URI_TOO_LONG;
            detail = "the request line (method, path and query) is too long";
        } else if (cause instanceof TooLongHttpHeaderException) {
            status = HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
            detail = "the request's headers are too large";
        } else {
            status = HttpResponseStatus.BAD_REQUEST;
            detail = "the request is not well-formed HTTP/1.1 (a malformed request line or header, a bad or doubled "
                    + "Content-Length, or a forbidden character)";
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("Request from " + ctx.channel().remoteAddress() + " refused by the HTTP decoder with " + status.code()
                    + ": " + cause);
        }
        String title = status.reasonPhrase();
        String json = "{\"type\":\"/problems/" + title.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9]+", "-")
                + "\",\"title\":\"" + title + "\",\"status\":" + status.code() + ",\"detail\":\"" + detail
                + "\",\"instance\":null}";
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/problem+json")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(response).addListener((ChannelFutureListener) written -> lingeringClose(ctx));
    }

    /**
     * Ends the connection without losing the answer: closing a socket with unread request bytes in
     * its buffer (the rest of an overlong line) sends a reset, which can destroy the answer in the
     * client's buffer before it is read. So the output is shut down first (the client reads the
     * answer, then the end of the stream), whatever else arrives is dropped, and the connection
     * closes when the client closes it or after {@link #LINGER} at the latest.
     */
    private static void lingeringClose(ChannelHandlerContext ctx) {
        if (ctx.channel() instanceof DuplexChannel duplex && duplex.isActive()) {
            duplex.shutdownOutput();
            ctx.executor().schedule(() -> {
                ctx.close();
            }, LINGER.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            ctx.close();
        }
    }
}
