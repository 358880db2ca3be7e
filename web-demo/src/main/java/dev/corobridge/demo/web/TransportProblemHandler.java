package dev.corobridge.demo.web;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
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
 * {@code Content-Length}, a malformed header, a forbidden byte, bytes of another protocol, a bad
 * chunk size or chunk inside a chunked body). Each gets {@code Connection: close} and the connection
 * closes: after such a request the decoder cannot tell where the next one starts. Logged at DEBUG
 * only (a client mistake), and counted by the {@link ClientFaultSummary}.
 *
 * <p>Why a handler of its own: Reactor Netty answers these itself, before Spring sees the request,
 * with an empty body and no {@code Content-Type}. This handler sits between the HTTP codec and
 * Reactor Netty's HTTP handler. Two cases:
 * <ul>
 * <li>The request line or headers fail to decode: the handler takes the request off the pipeline
 *     and answers it (closing with a {@link LingeringClose}, so the answer is not lost to a reset), so Reactor Netty never sees
 *     it.</li>
 * <li>The body fails to decode (a chunked body: the request was already handed to the application,
 *     which is reading its body): the failure must go on to Reactor Netty, which ends the
 *     application's request and writes its own empty {@code 400}. That answer passes this handler on
 *     its way out; if the response to this request had not begun before the failure, the handler
 *     writes problem JSON with the same status in its place.</li>
 * </ul>
 *
 * <p>What it cannot do: when the body fails while the answer to its request is being sent (its
 * status line went out, its end did not: a stream), no second status can be sent; Reactor Netty
 * then ends the answer under way (see API.md). A body that fails after its request was answered
 * whole (e.g. a 415 sent before the body was read) gets Reactor Netty's 400 after that answer, and
 * that 400 is problem JSON too.
 *
 * <p>Thread-safety: one per connection, called on its event loop only. Not sharable.
 */
public final class TransportProblemHandler extends ChannelDuplexHandler {

    private static final Log LOG = LogFactory.getLog(TransportProblemHandler.class);
    static final String NAME = "corobridge.demo.transportProblems";
    private static final String HEAD_DETAIL = "the request is not well-formed HTTP/1.1 (a malformed request line or "
            + "header, a bad or doubled Content-Length, or a forbidden character)";
    private static final String BODY_DETAIL = "the request body is not well-formed HTTP/1.1 chunked encoding "
            + "(a bad chunk size, or a chunk without its line end)";

    private final ClientFaultSummary faults;
    /** A request's head failed to decode: the connection is closing, nothing after it counts. */
    private boolean refused;
    /** Requests read whose final response has not been written whole (more than 1: pipelined). */
    private int unanswered;
    /** The oldest request read whose final response has not been written whole, if any. */
    private HttpRequest oldestUnanswered;
    /** The final response to the oldest unanswered request has begun (its status line went out). */
    private boolean answerBegun;
    /** A body failed to decode while no answer was under way and none but its own was pending: what failed. */
    private Throwable bodyRefusal;

    private TransportProblemHandler(ClientFaultSummary faults) {
        this.faults = faults;
    }

    /** Puts a handler on every connection the server accepts; refusals are counted by {@code faults}. */
    public static NettyServerCustomizer customizer(ClientFaultSummary faults) {
        Objects.requireNonNull(faults, "faults");
        return server -> server.doOnChannelInit((observer, channel, remoteAddress) -> install(channel.pipeline(), faults));
    }

    /** Adds a handler to a new connection's pipeline, right after the HTTP codec (if there is one). */
    static void install(ChannelPipeline pipeline, ClientFaultSummary faults) {
        if (pipeline.get(NettyPipeline.HttpCodec) != null) {
            pipeline.addAfter(NettyPipeline.HttpCodec, NAME, new TransportProblemHandler(faults));
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (refused) {
            ReferenceCountUtil.release(msg); // the connection is closing: nothing after the bad request counts
            return;
        }
        if (msg instanceof HttpRequest request) {
            Throwable cause = request.decoderResult().isFailure() ? request.decoderResult().cause() : notAUri(request);
            if (cause != null) {
                refused = true;
                ReferenceCountUtil.release(msg);
                refuse(ctx, cause);
                return;
            }
            unanswered++;
            oldestUnanswered = unanswered == 1 ? request : oldestUnanswered;
        } else if (msg instanceof HttpContent content && content.decoderResult().isFailure()) {
            Throwable cause = content.decoderResult().cause();
            if (LOG.isDebugEnabled()) {
                LOG.debug("Request body from " + ctx.channel().remoteAddress() + " refused by the HTTP decoder"
                        + (answerBegun ? " after its answer began" : "") + ": " + cause);
            }
            faults.record(ctx.channel(), "an undecodable request body (" + cause.getMessage() + ")");
            if (unanswered <= 1 && !answerBegun) {
                // No answer under way (none begun, or the request was answered whole before its body
                // ended): Reactor Netty's own answer to the failure comes past write() below.
                bodyRefusal = cause;
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        Object out = msg;
        if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            answerBegun = true;
            Throwable cause = bodyRefusal;
            bodyRefusal = null;
            if (response instanceof FullHttpResponse full && full.content().readableBytes() == 0
                    && response.status().code() >= 400 && !response.headers().contains(HttpHeaderNames.CONTENT_TYPE)) {
                // An empty refusal from a layer below Spring (Reactor Netty refusing a body that failed
                // to decode or a request it cannot serve): problem JSON instead, same status and headers.
                FullHttpResponse problem = problem(response.status(), emptyRefusalDetail(response.status(), cause));
                problem.headers().remove(HttpHeaderNames.CONNECTION)
                        .setAll(full.headers().remove(HttpHeaderNames.CONTENT_LENGTH));
                out = problem;
                full.release();
            }
        }
        if (msg instanceof LastHttpContent && answerBegun) {
            answerBegun = false; // the final response is written whole: the next one answers the next request
            unanswered = Math.max(0, unanswered - 1);
            oldestUnanswered = null;
        }
        ctx.write(out, promise);
    }

    private void refuse(ChannelHandlerContext ctx, Throwable cause) {
        HttpResponseStatus status;
        String detail;
        if (cause instanceof TooLongHttpLineException) {
            status = HttpResponseStatus.REQUEST_URI_TOO_LONG;
            detail = "the request line (method, path and query) is too long";
        } else if (cause instanceof TooLongHttpHeaderException) {
            status = HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
            detail = "the request's headers are too large";
        } else if (cause instanceof URISyntaxException uri) {
            status = HttpResponseStatus.BAD_REQUEST;
            detail = "the request target (path and query) is not a URI: " + uri.getReason().toLowerCase(Locale.ROOT)
                    + (uri.getIndex() >= 0 ? " at index " + uri.getIndex() : "") + "; percent-encode such characters";
        } else {
            status = HttpResponseStatus.BAD_REQUEST;
            detail = HEAD_DETAIL;
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("Request from " + ctx.channel().remoteAddress() + " refused by the HTTP decoder with " + status.code()
                    + ": " + JsonInput.printable(String.valueOf(cause), 200));
        }
        faults.record(ctx.channel(), status.code() + " from the HTTP decoder (" + cause.getMessage() + ")");
        answerBegun = true;
        ctx.writeAndFlush(problem(status, detail)).addListener((ChannelFutureListener) written -> LingeringClose.of(ctx));
    }

    /**
     * Why a request whose head decoded is still not one the service can read, or null: its target
     * (path and query) is not a URI. Spring parses it as one and answers an empty 400 when it is not
     * (a NUL or another control character, a space, a backslash, a bracket, a broken percent escape).
     */
    private static Throwable notAUri(HttpRequest request) {
        try {
            new URI(request.uri());
            return null;
        } catch (URISyntaxException e) {
            return e;
        }
    }

    /** The detail of a problem that stands in for an empty refusal from below Spring. */
    private String emptyRefusalDetail(HttpResponseStatus status, Throwable bodyCause) {
        if (bodyCause != null) {
            return status.equals(HttpResponseStatus.BAD_REQUEST) ? BODY_DETAIL
                    : "the request body's chunked framing (a chunk size line or the trailer fields) is too long";
        }
        HttpRequest request = oldestUnanswered;
        if (request != null && request.protocolVersion().majorVersion() == 2) {
            return "HTTP/2 is not served on an HTTP/1.1 connection; send HTTP/1.1";
        }
        return status.equals(HttpResponseStatus.BAD_REQUEST) ? HEAD_DETAIL
                : "the request was refused before it reached the service";
    }

    /** A problem JSON answer that closes the connection. */
    private static FullHttpResponse problem(HttpResponseStatus status, String detail) {
        String title = status.reasonPhrase();
        String json = "{\"type\":\"/problems/" + title.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-")
                + "\",\"title\":\"" + title + "\",\"status\":" + status.code() + ",\"detail\":\"" + detail
                + "\",\"instance\":null}";
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                Unpooled.wrappedBuffer(json.getBytes(StandardCharsets.UTF_8)));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/problem+json")
                .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
                .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return response;
    }
}
