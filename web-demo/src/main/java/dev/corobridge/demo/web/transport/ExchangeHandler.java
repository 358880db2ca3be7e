package dev.corobridge.demo.web.transport;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.netty.NettyPipeline;

/**
 * The one Netty handler of a server connection (see {@link HttpTransport}). It follows the state of
 * the connection's exchanges, the requests read whose answer has not been written whole, whether the
 * answer to the oldest has begun, and acts on that one state:
 * <ul>
 * <li><b>Refusals as problem JSON.</b> A request whose head the HTTP decoder cannot read gets
 *     {@code 414} (request line over the limit), {@code 431} (headers over it) or {@code 400}
 *     (anything else that is not HTTP/1.1), and so does, with {@code 400}, a request whose target is
 *     not a URI (a NUL or another control character, a space, a backslash, a bracket, a broken
 *     percent escape: Spring would answer an empty 400; a raw byte above 0x7F or a fragment, which
 *     Spring would serve), an HTTP/1.1 request without a {@code Host}
 *     header, any request with more than one or with one that is not a host and optional port, and
 *     a request line of HTTP major version 0 or 3 and up (RFC 9112: the request's authority or
 *     framing is unknown). The handler answers it itself,
 *     {@code Connection: close}, and closes the connection lingering ({@link LingeringClose}, so the
 *     answer is not lost to a reset): after such a request nothing tells where the next one starts.
 *     Reactor Netty, which sees the request only after this handler, never sees it.</li>
 * <li><b>Empty refusals from below Spring.</b> Reactor Netty answers some requests itself with an
 *     empty error: a chunked body that fails to decode once its request went on to the application,
 *     an HTTP/2 request line or preface. Such an answer passes this handler on its way out and is
 *     replaced by problem JSON with the same status and headers. A body that fails while the answer
 *     to its request is being sent (a stream) cannot get a status of its own: Reactor Netty ends
 *     that answer.</li>
 * <li><b>Header deadline.</b> Once the first byte of a request arrives, its request line and
 *     headers must be complete within {@code demo.http.header-timeout}, or the connection gets
 *     {@code 408} and closes (a client sending its headers a byte at a time would hold it forever).
 *     The decoder reports no partial head, so a small inbound hook before it reports the arrival
 *     of bytes while no request is under way, and when a request ends, the decoder is asked whether
 *     it holds more bytes ({@link DecoderBacklog}): the beginning of the next request, read with it,
 *     whose deadline starts once the requests before it are answered (the service's time to answer
 *     does not count against the client), although no byte of it may ever arrive again. One timer
 *     per connection checks the deadline, not one per request: a head that completes only clears
 *     the time its first byte came, and the timer, when it fires, waits again for what is left of
 *     the deadline of the head then under way (if any), as Netty's {@code IdleStateHandler} does,
 *     so a kept-alive connection under load schedules one timer per timeout, not one per
 *     request.</li>
 * <li><b>Body deadline.</b> Once a request's head arrives, its body must be complete within
 *     {@code demo.http.body-timeout}, however it trickles in; then the connection closes, after a
 *     {@code 408} if nothing of the answer was sent and no other request waits for one. The timer is
 *     armed at the end of a read in which the body did not complete, so a request that arrives in
 *     one read (nearly all) costs none. The application, still reading the body, sees a client
 *     abort.</li>
 * <li><b>A request that closes the connection</b> ({@code Connection: close}, or HTTP/1.0 without
 *     keep-alive) is the last one served: the requests before it are answered, then it, with
 *     {@code Connection: close}, and then the connection closes lingering ({@link LingeringClose}:
 *     requests the client sent after it must not turn into a reset that destroys that answer);
 *     whatever is read after it is dropped (RFC 9112, section 9.6). It goes on to Reactor Netty as
 *     kept alive, and this handler closes the connection after its answer: Reactor Netty, told to
 *     close by a request that arrives before it has finished with the one before (pipelined, or a
 *     ping answered within the same read), answers that one with a close and never the closing
 *     request, or answers neither and leaves the connection open.</li>
 * <li><b>A client that ends its side of the connection</b> (a half-close: it shuts its output down
 *     after its requests and reads on; or it closed the connection, which looks the same) has the
 *     requests it sent whole answered for up to {@link #HALF_CLOSE_GRACE_MILLIS} (1 s), and then the connection
 *     closes, the last answer with {@code Connection: close} if it had not begun. The connection
 *     allows half-closure, so the end of stream reaches this handler as an event instead of closing
 *     the connection at once, which lost every answer not yet written (one after a pump hop, say)
 *     whenever the end of stream came first. A request still unanswered after the grace (a long poll)
 *     is cancelled by the close, as a client that left is owed; an event stream ends at once, since
 *     it would never end by itself. A reset (the client aborted: a read fails, then the input
 *     ends) closes the connection at once: nothing can be answered on it. A body the end of stream cuts short gets {@code 400} and the
 *     connection closes (as at the body deadline); with nothing left to answer (a head cut short
 *     included), or once the connection is closing, it closes at once.</li>
 * <li><b>An answer of unknown length to HTTP/1.0</b> (an event stream) goes out without chunked
 *     coding, which HTTP/1.0 does not have: its end is the connection's ({@link #delimitByClose}).</li>
 * <li><b>Tracking for the shutdown drain.</b> The connection is reported to the
 *     {@link ConnectionTracker}: busy from its accept until its first answer is written (or fails to
 *     be), and again from each further request until that one's answer is. Once the service shuts
 *     down ({@link ServiceState}), every final answer gets {@code Connection: close} and the
 *     connection closes once it is written, so no client sends another request on a connection
 *     about to go away; a {@code 503} then counts as a refusal.</li>
 * </ul>
 * Each refusal and expiry is logged at DEBUG (a client mistake) and counted by the
 * {@link ClientFaultSummary}, which marks the connection so the application's error about it is not
 * counted twice. After one, the connection is closing and whatever it still reads is dropped.
 *
 * <p>Position: right after Reactor Netty's HTTP/1.1 codec and before its HTTP handler, where it sees
 * decoded requests first and every response last before the encoder; the byte hook right before the
 * codec. A connection without that codec (h2c) gets the handler at the end of its pipeline: it sees
 * no HTTP messages there and only tracks the connection, busy until it closes.
 *
 * <p>Thread-safety: confined to the connection's event loop: Netty calls every handler method there,
 * and the deadlines are scheduled on it; the fields need no synchronization. Not sharable.
 */
final class ExchangeHandler extends ChannelDuplexHandler {

    private static final Log LOG = LogFactory.getLog(ExchangeHandler.class);
    /**
     * How long the requests of a client that ended its side of the connection are still answered:
     * long enough for any answer the service is computing, short enough that a long poll of a client
     * that left is cancelled soon.
     */
    static final long HALF_CLOSE_GRACE_MILLIS = 1_000;
    /** The handler's name in the pipeline, and its byte hook's. */
    static final String NAME = "corobridge.demo.exchange";
    static final String BYTES = "corobridge.demo.exchange.bytes";
    private static final long NO_HEAD = Long.MIN_VALUE;
    private static final String HEAD_DETAIL = "the request is not well-formed HTTP/1.1 (a malformed request line or "
            + "header, a bad or doubled Content-Length, or a forbidden character)";
    private static final String BODY_DETAIL = "the request body is not well-formed HTTP/1.1 chunked encoding "
            + "(a bad chunk size, or a chunk without its line end)";

    private final HttpTransport transport;
    private ChannelHandlerContext ctx;
    /** The versions of the requests read whose final answer has not been written whole, oldest first (pipelined). */
    private final ArrayDeque<HttpVersion> unanswered = new ArrayDeque<>();
    /** The final answer to the oldest unanswered request has begun: its status line went out. */
    private boolean answerBegun;
    /** The answer under way says {@code Connection: close}: close the connection once it is written. */
    private boolean closeAfterAnswer;
    /** A refusal or an expiry: the connection is closing, nothing read counts any more. */
    private boolean closing;
    /** The newest request read asks to close the connection once answered ({@code Connection: close}, or HTTP/1.0). */
    private boolean closeRequested;
    /** That request was read whole: nothing after it is served, and what is read is dropped. */
    private boolean lastRequestRead;
    /** The client shut its output down: nothing more arrives; close once the requests read are answered. */
    private boolean inputShut;
    /**
     * Reading failed (a reset: the client aborted): the end of input that the transport reports
     * after it is no half-close, and nothing can be answered any more.
     */
    private boolean readFailed;
    /** The answer under way is an event stream (it ends only when the connection does). */
    private boolean streamUnderWay;
    /** That stream's answer is chunked: a whole message ends with its last chunk. */
    private boolean streamChunked;
    /** The stream was ended here ({@link #endStreamAndClose}): what the application still writes is dropped. */
    private boolean streamEnded;
    /** Closes a half-closed connection whose requests are still unanswered after the grace. */
    private ScheduledFuture<?> halfCloseExpiry;
    /** A body that failed to decode while no answer was under way: Reactor Netty's empty answer to it follows. */
    private Throwable bodyRefusal;
    /** The body of the newest request is being read; {@link #bodyDueAt} is when it must be complete. */
    private boolean bodyUnderWay;
    private long bodyDueAt;
    /** When the first byte of the head being read arrived (executor's clock), or {@link #NO_HEAD}: none is being read. */
    private long headStartedAt = NO_HEAD;
    /** The decoder held bytes after the newest request's end: the next head has begun. */
    private boolean nextHeadBegun;
    /** Asks the codec's decoder for those bytes. */
    private DecoderBacklog backlog = DecoderBacklog.UNKNOWN;
    /** The timer that checks the header deadline; stays armed across requests (see the class comment). */
    private ScheduledFuture<?> headerCheck;
    private ScheduledFuture<?> bodyExpiry;
    /** As the tracker sees the connection: reported opened, busy (not answered), reported closed. */
    private boolean tracked;
    private boolean busy;
    private boolean untracked;

    /**
     * Reports bytes that arrive while no request is under way (none unanswered, no body being read):
     * they start a request's header deadline.
     */
    private final ChannelInboundHandlerAdapter bytes = new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext bytesCtx, Object msg) {
            if (unanswered.isEmpty() && !bodyUnderWay && !lastRequestRead) { // a body's bytes have the body's deadline, even once answered
                headBegan(bytesCtx);
            }
            bytesCtx.fireChannelRead(msg);
        }
    };

    private ExchangeHandler(HttpTransport transport) {
        this.transport = transport;
    }

    /** Adds a handler (and its byte hook) to a new connection's pipeline, around the HTTP/1.1 codec if there is one. */
    static void install(ChannelPipeline pipeline, HttpTransport transport) {
        ExchangeHandler handler = new ExchangeHandler(transport);
        if (transport.unsent != null) {
            transport.unsent.add(pipeline.channel());
        }
        // A client's end of stream becomes an event here, not a close: see "A client that ends its side".
        pipeline.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        ChannelHandler codec = pipeline.get(NettyPipeline.HttpCodec);
        if (codec != null) {
            handler.backlog = DecoderBacklog.of(codec);
            pipeline.addBefore(NettyPipeline.HttpCodec, BYTES, handler.bytes);
            pipeline.addAfter(NettyPipeline.HttpCodec, NAME, handler);
        } else {
            pipeline.addLast(NAME, handler);
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        tracked = true;
        busy = true;
        transport.tracker.opened();
        if (!ctx.channel().isOpen()) {
            untrack(); // closed before the handler was added: no channelInactive will come
        } else if (transport.maxConnections > 0 && transport.tracker.open() > transport.maxConnections) {
            ctx.executor().execute(() -> refuseOverTheLimit(ctx)); // once the pipeline is complete
        }
    }

    /**
     * A connection beyond {@code demo.http.max-connections}: answered 503 before its request is read,
     * and closed. The limit keeps file descriptors for the service's own files and for the
     * connections it has: without it, connections took every descriptor and nobody was answered.
     */
    private void refuseOverTheLimit(ChannelHandlerContext ctx) {
        if (closing || !ctx.channel().isActive()) {
            return;
        }
        transport.refusedConnections.warn("Refusing connections with 503: " + transport.tracker.open() + " open, the limit "
                + "is demo.http.max-connections " + transport.maxConnections, null);
        FullHttpResponse problem = ProblemJson.response(HttpResponseStatus.SERVICE_UNAVAILABLE, "the service has "
                + transport.maxConnections + " connections open, its limit (demo.http.max-connections); try again shortly");
        problem.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
        closeWithProblem(ctx, problem);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (closing || lastRequestRead) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof HttpRequest request) {
            headStartedAt = NO_HEAD; // the head is complete: the armed check finds nothing to expire
            nextHeadBegun = false;
            if (!busy && !untracked) {
                busy = true;
                transport.tracker.requestStarted();
            }
            Throwable refusal = request.decoderResult().isFailure() ? request.decoderResult().cause() : notServable(request);
            if (refusal != null) {
                ReferenceCountUtil.release(msg);
                refuse(ctx, refusal);
                return;
            }
            if (request.protocolVersion().majorVersion() == 1 && request.protocolVersion().minorVersion() > 1) {
                // A later 1.x is read and answered as the 1.1 it is compatible with: the answer names
                // the highest version the service speaks (RFC 9110, section 6.2), never the request's.
                request.setProtocolVersion(HttpVersion.HTTP_1_1);
            }
            unanswered.add(request.protocolVersion());
            if (!HttpUtil.isKeepAlive(request)) {
                closeRequested = true;
                HttpUtil.setKeepAlive(request, true); // this handler closes after its answer (see the class comment)
            }
            bodyUnderWay = !(msg instanceof LastHttpContent);
            bodyDueAt = System.nanoTime() + transport.bodyTimeoutNanos;
        } else if (msg instanceof HttpContent content && content.decoderResult().isFailure()) {
            bodyFailed(ctx, content.decoderResult().cause());
        }
        if (msg instanceof LastHttpContent) {
            bodyUnderWay = false;
            bodyExpiry = cancel(bodyExpiry);
            lastRequestRead = closeRequested;
            nextHeadBegun = !lastRequestRead && backlog.bytes() > 0; // asked before the decoder goes on with them
            if (nextHeadBegun && unanswered.isEmpty()) {
                headBegan(ctx); // this request was answered before its body ended
            }
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (bodyUnderWay && bodyExpiry == null && !closing) {
            bodyExpiry = ctx.executor().schedule(this::bodyDeadlinePassed, bodyDueAt - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (streamEnded) {
            // The stream's next events, after its last chunk: dropped, and reported written. A failure
            // would reach Spring and Reactor Netty as an error after the answer began, logged as the
            // service's fault; the stream ends with its connection, which closes once the last
            // chunk is out (the event-stream answers end when their connection closes).
            ReferenceCountUtil.release(msg);
            promise.trySuccess();
            return;
        }
        Object out = msg;
        if (msg instanceof HttpResponse response && response.status().codeClass() != HttpStatusClass.INFORMATIONAL) {
            answerBegun = true;
            HttpResponse answer = withProblemForEmptyRefusal(response);
            if ("".equals(answer.headers().get(HttpHeaderNames.ACCEPT_PATCH))) {
                // Spring's OPTIONS answer of an annotated endpoint (the actuator's) lists none; the
                // header names at least one media type when sent (RFC 5789, section 3.1).
                answer.headers().remove(HttpHeaderNames.ACCEPT_PATCH);
            }
            if (answer.status().code() >= 400) {
                answer.setStatus(ReasonPhrases.current(answer.status())); // the phrase that is the problem's title
            }
            streamUnderWay = isEventStream(answer);
            if ((closeRequested || inputShut) && unanswered.size() <= 1) { // the last answer: the connection closes after it
                HttpUtil.setKeepAlive(answer, false);
                closeAfterAnswer = true;
            }
            if (transport.state.isShuttingDown()) {
                HttpUtil.setKeepAlive(answer, false);
                closeAfterAnswer = true;
                if (answer.status().code() == 503) {
                    transport.tracker.refused();
                }
            }
            if (HttpVersion.HTTP_1_0.equals(unanswered.peek()) && HttpUtil.isTransferEncodingChunked(answer)) {
                delimitByClose(answer);
            }
            streamChunked = streamUnderWay && HttpUtil.isTransferEncodingChunked(answer);
            out = answer;
        }
        ChannelPromise p = promise;
        if (inputShut && streamUnderWay && !closing) { // a stream to a client that ended its side: it would never end
            if (!(msg instanceof LastHttpContent)) {
                ctx.write(out, promise);
                endStreamAndClose(ctx);
                return;
            }
            closing = true;
            p = promise.unvoid();
            p.addListener(written -> ctx.close());
        }
        if (msg instanceof LastHttpContent && answerBegun) {
            // The final answer is written whole: the next one answers the next request.
            answerBegun = false;
            streamUnderWay = false;
            unanswered.poll();
            if (unanswered.isEmpty() && nextHeadBegun) {
                headBegan(ctx); // its first bytes came with the request just answered
            }
            // A half-closed client whose last request's answer had begun before its end of stream
            // came: nothing more will arrive, so close once this answer is written.
            boolean close = closeAfterAnswer || (inputShut && unanswered.isEmpty());
            // The client asked to close: it may have sent more, which a plain close would answer
            // with a reset that can destroy this answer in its buffer.
            boolean linger = close && closeRequested;
            closeAfterAnswer = false;
            p = promise.unvoid();
            p.addListener(written -> { // written or failed: the connection is closing in the latter case anyway
                answered();
                if (linger) {
                    LingeringClose.of(ctx);
                } else if (close) {
                    ctx.close();
                }
            });
        }
        ctx.write(out, p);
    }

    /**
     * Makes an answer of unknown length to an HTTP/1.0 request end with the connection: HTTP/1.0 has
     * no chunked coding (RFC 9112, section 6.1: no {@code Transfer-Encoding} to it), so the body goes
     * out as it is (Netty's encoder writes a message that is neither chunked nor of known length
     * that way) and the close marks its end, whatever the request said about keeping the
     * connection alive. Nothing read after the request is served, and the close lingers, as after a
     * request that asked to close.
     */
    private void delimitByClose(HttpResponse answer) {
        HttpUtil.setTransferEncodingChunked(answer, false);
        answer.setProtocolVersion(HttpVersion.HTTP_1_0);
        answer.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        closeAfterAnswer = true;
        closeRequested = true;
    }

    /**
     * A read that failed (with the connection allowing half-closure, the transport then reports an
     * end of input instead of closing): a reset, so the end of input closes at once.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof java.io.IOException) {
            readFailed = true;
        }
        ctx.fireExceptionCaught(cause);
    }

    /**
     * The client ended its side of the connection (a half-close, or a close). With nothing left to
     * answer, while the connection lingers after its last answer, or with an event stream under way,
     * it closes now; a body under way is cut short ({@link #abandonBody}); otherwise it closes once
     * the requests read are answered, after the grace at the latest, or as a refusal under way
     * closes it.
     */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent) {
            inputShut = true;
            boolean lingering = ctx.channel() instanceof DuplexChannel duplex && duplex.isOutputShutdown();
            if (streamUnderWay && !closing && !readFailed && !lingering) {
                endStreamAndClose(ctx);
            } else if (readFailed || lingering || (unanswered.isEmpty() && !closing) || (streamUnderWay && !closing)) {
                closeNow();
            } else if (bodyUnderWay && !closing) { // the body can never complete
                abandonBody(HttpResponseStatus.BAD_REQUEST, "a request body cut short by the client's end of stream",
                        "the request body ended before it was complete: the client shut its side of the connection down");
            } else if (!closing) {
                halfCloseExpiry = ctx.executor().schedule(this::halfCloseGraceOver, HALF_CLOSE_GRACE_MILLIS, TimeUnit.MILLISECONDS);
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** The grace of a half-closed connection is over: what is still unanswered is cancelled by the close. */
    private void halfCloseGraceOver() {
        halfCloseExpiry = null;
        if (closing || unanswered.isEmpty() || !ctx.channel().isActive()) {
            return; // answered meanwhile: the last answer closed it, or is closing it
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("Connection from " + ctx.channel().remoteAddress() + " closed: its client ended its side "
                    + HALF_CLOSE_GRACE_MILLIS + " ms ago and " + unanswered.size() + " request(s) are still unanswered");
        }
        closeNow();
    }

    /** Whether {@code answer} is an event stream ({@code text/event-stream}). */
    private static boolean isEventStream(HttpResponse answer) {
        String type = answer.headers().get(HttpHeaderNames.CONTENT_TYPE);
        return type != null && type.regionMatches(true, 0, "text/event-stream", 0, "text/event-stream".length());
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelDeadlines();
        untrack();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelDeadlines();
        untrack();
    }

    /**
     * Why a request whose head decoded is still not one the service can read, or null: an HTTP major
     * version other than 1 (HTTP/2 spoken on an HTTP/1.1 connection, its connection preface
     * {@code PRI * HTTP/2.0} included, is left to Reactor Netty, whose empty refusal becomes problem
     * JSON saying so on its way out, whatever the rest of the head); a target (path and query) that is not a
     * URI, which Spring parses it as, or not one of the request target's forms
     * ({@link #isRequestTarget}); not exactly one {@code Host} header in an HTTP/1.1 request, or
     * more than one in any (RFC 9112, section 3.2: answered 400, as the request's authority is
     * unknown or ambiguous).
     */
    private static Throwable notServable(HttpRequest request) {
        HttpVersion version = request.protocolVersion();
        if (version.majorVersion() != 1 && version.majorVersion() != 2) {
            return new UnservableRequest("HTTP/" + version.majorVersion() + "." + version.minorVersion()
                    + " is not served; send HTTP/1.1");
        }
        if (version.majorVersion() == 2) {
            return null; // its refusal says so, whatever the rest (the preface's target is '*')
        }
        String target = request.uri();
        for (int i = 0; i < target.length(); i++) {
            // java.net.URI takes letters beyond ASCII and a fragment; a request target has neither
            // (RFC 9112, section 3.2: raw bytes above 0x7F arrive here as Latin-1 letters).
            char c = target.charAt(i);
            if (c >= 0x80) {
                return new URISyntaxException(target, "A raw byte above 0x7F", i);
            }
            if (c == '#') {
                return new URISyntaxException(target, "A fragment ('#')", i);
            }
        }
        URI uri;
        try {
            uri = new URI(target);
        } catch (URISyntaxException e) {
            return e;
        }
        if (!isRequestTarget(request.method(), target, uri)) {
            return new UnservableRequest("the request target is none of a path from '/', an absolute http or https "
                    + "URI, or '*' for OPTIONS");
        }
        int hosts = request.headers().getAll(HttpHeaderNames.HOST).size();
        if (hosts > 1) {
            return new UnservableRequest("the request has " + hosts + " Host headers; send exactly one");
        }
        if (hosts == 0 && version.majorVersion() == 1 && version.minorVersion() >= 1) {
            return new UnservableRequest("an HTTP/1.1 request needs a Host header; send exactly one");
        }
        if (hosts == 1 && !isHost(request.headers().get(HttpHeaderNames.HOST))) {
            return new UnservableRequest("the Host header is not a host name or address with an optional port");
        }
        return null;
    }

    /**
     * Whether {@code target} has one of the request target's forms for {@code method} (RFC 9112,
     * section 3.2): a path from {@code /} (origin-form), an absolute {@code http} or {@code https}
     * URI with a host (absolute-form), {@code *} for {@code OPTIONS} (asterisk-form). A
     * {@code CONNECT}'s target (authority-form) is left to the layers above, which do not serve the
     * method.
     */
    static boolean isRequestTarget(HttpMethod method, String target, URI uri) {
        if (target.startsWith("/")) {
            return true;
        }
        if (target.equals("*")) {
            return HttpMethod.OPTIONS.equals(method);
        }
        if (HttpMethod.CONNECT.equals(method)) {
            return true;
        }
        String scheme = uri.getScheme();
        return scheme != null && (scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))
                && uri.getRawAuthority() != null && !uri.getRawAuthority().isEmpty();
    }

    /**
     * Whether a {@code Host} value is {@code uri-host [":" port]} (RFC 9112, section 3.2; RFC 3986,
     * section 3.2.2): a registered name (letters, digits, {@code -._~}, sub-delimiters and percent
     * escapes) or an IPv4 address, or an IP literal in brackets, then at most one port of up to
     * 65535. Empty is allowed (a target without an authority).
     */
    static boolean isHost(String value) {
        int end = value.length();
        int colon = value.lastIndexOf(':');
        int hostEnd = end;
        if (value.startsWith("[")) {
            int close = value.indexOf(']');
            if (close < 0) {
                return false;
            }
            for (int i = 1; i < close; i++) {
                char c = value.charAt(i);
                if (!(isAsciiLetterOrDigit(c) || c == ':' || c == '.')) {
                    return false;
                }
            }
            hostEnd = close + 1;
            if (hostEnd < end && value.charAt(hostEnd) != ':') {
                return false;
            }
        } else {
            if (colon >= 0) {
                hostEnd = colon;
            }
            for (int i = 0; i < hostEnd; i++) {
                char c = value.charAt(i);
                if (!(isAsciiLetterOrDigit(c) || "-._~!$&'()*+,;=%".indexOf(c) >= 0)) {
                    return false;
                }
            }
        }
        if (hostEnd == end) {
            return true;
        }
        int port = 0;
        for (int i = hostEnd + 1; i < end; i++) { // empty port allowed (RFC 3986: port = *DIGIT)
            char c = value.charAt(i);
            if (c < '0' || c > '9' || (port = port * 10 + (c - '0')) > 65535) {
                return false;
            }
        }
        return true;
    }

    private static boolean isAsciiLetterOrDigit(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** A request head that decoded but cannot be served (see {@link #notServable}); its message is the detail. */
    private static final class UnservableRequest extends Exception {
        UnservableRequest(String detail) {
            super(detail, null, false, false);
        }
    }

    /** Answers a request whose head cannot be read with problem JSON, and closes the connection. */
    private void refuse(ChannelHandlerContext ctx, Throwable cause) {
        HttpResponseStatus status = HttpResponseStatus.BAD_REQUEST;
        String detail = HEAD_DETAIL;
        String why = "by the HTTP decoder";
        if (cause instanceof TooLongHttpLineException) {
            status = HttpResponseStatus.REQUEST_URI_TOO_LONG;
            detail = "the request line (method, path and query) is too long";
        } else if (cause instanceof TooLongHttpHeaderException) {
            status = HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
            detail = "the request's headers are too large";
        } else if (cause instanceof UnservableRequest unservable) {
            why = "as it cannot be served";
            detail = unservable.getMessage();
        } else if (cause instanceof URISyntaxException uri) {
            why = "as its target is not a URI";
            detail = "the request target (path and query) is not a URI: " + uri.getReason().toLowerCase(java.util.Locale.ROOT)
                    + (uri.getIndex() >= 0 ? " at index " + uri.getIndex() : "") + "; percent-encode such characters";
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("Request from " + ctx.channel().remoteAddress() + " refused " + why + " with " + status.code() + ": "
                    + ClientText.printable(String.valueOf(cause), 200));
        }
        transport.faults.record(ctx.channel(), status.code() + (cause instanceof URISyntaxException
                ? " for a request target that is not a URI (" : cause instanceof UnservableRequest
                ? " for a request head that cannot be served (" : " from the HTTP decoder (") + cause.getMessage() + ")");
        closeWithProblem(ctx, status, detail);
    }

    /** A body failed to decode: Reactor Netty will end the request and answer it, unless an answer is under way. */
    private void bodyFailed(ChannelHandlerContext ctx, Throwable cause) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("Request body from " + ctx.channel().remoteAddress() + " refused by the HTTP decoder"
                    + (answerBegun ? " after its answer began" : "") + ": " + ClientText.printable(String.valueOf(cause), 200));
        }
        transport.faults.record(ctx.channel(), "an undecodable request body (" + cause.getMessage() + ")");
        if (unanswered.size() <= 1 && !answerBegun) {
            // No answer under way (none begun, or the request was answered whole before its body
            // ended): Reactor Netty's own answer to the failure comes past write().
            bodyRefusal = cause;
        }
    }

    /**
     * {@code response}, or problem JSON in its place when it is an empty refusal from a layer below
     * Spring (a complete error answer without body or content type), with the same status and headers.
     */
    private HttpResponse withProblemForEmptyRefusal(HttpResponse response) {
        Throwable bodyCause = bodyRefusal;
        bodyRefusal = null;
        if (!(response instanceof FullHttpResponse full) || full.content().isReadable() || response.status().code() < 400
                || response.headers().contains(HttpHeaderNames.CONTENT_TYPE)) {
            return response;
        }
        FullHttpResponse problem = ProblemJson.response(response.status(), emptyRefusalDetail(response.status(), bodyCause));
        problem.headers().setAll(full.headers().remove(HttpHeaderNames.CONTENT_LENGTH));
        full.release();
        return problem;
    }

    private String emptyRefusalDetail(HttpResponseStatus status, Throwable bodyCause) {
        if (bodyCause != null) {
            return status.equals(HttpResponseStatus.BAD_REQUEST) ? BODY_DETAIL
                    : "the request body's chunked framing (a chunk size line or the trailer fields) is too long";
        }
        HttpVersion version = unanswered.peek();
        if (version != null && version.majorVersion() == 2) {
            return "HTTP/2 is not served on an HTTP/1.1 connection; send HTTP/1.1";
        }
        if (status.equals(HttpResponseStatus.BAD_REQUEST)) {
            return HEAD_DETAIL;
        }
        // An empty error from a part of the service that writes no body (an actuator endpoint's
        // 404 for an unknown metric): said in the words the service's own refusals use.
        return status.equals(HttpResponseStatus.NOT_FOUND) ? "no such endpoint or file"
                : "the request was refused: " + status.reasonPhrase();
    }

    /** A request's head began (its first bytes are read, or now count): its deadline starts unless one runs. */
    private void headBegan(ChannelHandlerContext anyCtx) {
        if (headStartedAt == NO_HEAD && !closing && !lastRequestRead) {
            headStartedAt = anyCtx.executor().ticker().nanoTime();
            if (headerCheck == null) {
                headerCheck = anyCtx.executor().schedule(this::headerCheckDue, transport.headerTimeoutNanos, TimeUnit.NANOSECONDS);
            }
        }
    }

    /**
     * The header check's timer fired: nothing to do if no head is being read (the next head's first
     * byte arms it again), a wait for the rest of the deadline if the head under way began later
     * than the one it was armed for, else the deadline passed.
     */
    private void headerCheckDue() {
        headerCheck = null;
        if (headStartedAt == NO_HEAD || !unanswered.isEmpty() || closing || !ctx.channel().isActive()) {
            return;
        }
        long left = headStartedAt + transport.headerTimeoutNanos - ctx.executor().ticker().nanoTime();
        if (left > 0) {
            headerCheck = ctx.executor().schedule(this::headerCheckDue, left, TimeUnit.NANOSECONDS);
            return;
        }
        expired(transport.lateHeaders, " with 408");
        closeWithProblem(ctx, HttpResponseStatus.REQUEST_TIMEOUT, "the request's headers did not arrive in time");
    }

    private void bodyDeadlinePassed() {
        bodyExpiry = null;
        if (!bodyUnderWay || closing || !ctx.channel().isActive()) {
            return;
        }
        abandonBody(HttpResponseStatus.REQUEST_TIMEOUT, transport.lateBody, "the request body did not arrive in time");
    }

    /**
     * Ends a request whose body will not complete (its deadline passed, or the client's end of
     * stream cut it short): {@code status} as problem JSON if nothing of the answer was sent and no
     * other request waits for one, then the connection closes. The application, still reading the
     * body, sees a client abort.
     */
    private void abandonBody(HttpResponseStatus status, String fault, String detail) {
        bodyUnderWay = false;
        boolean answer = unanswered.size() == 1 && !answerBegun;
        expired(fault, answer ? " with " + status.code() : "");
        if (answer) {
            closeWithProblem(ctx, status, detail);
        } else {
            closeNow(); // an answer began (or another request waits for one): no second status can be sent
        }
    }

    /** Closes the connection now; nothing read from here on counts. */
    private void closeNow() {
        closing = true;
        cancelDeadlines();
        ctx.close();
    }

    /**
     * Ends the event stream under way, whose client ended its side (it would never end otherwise),
     * as a whole message, and closes: its last chunk when it is chunked (the client reads on, and a
     * message without it is cut short), then the close once that is written. The application's
     * later writes to it are dropped (reported written: a failure would be logged as an error of
     * the service's); the close ends its stream.
     */
    private void endStreamAndClose(ChannelHandlerContext ctx) {
        closing = true;
        cancelDeadlines();
        streamEnded = true;
        // Closed once what is written went out: a close drops what is still queued for the socket.
        Object end = streamChunked ? LastHttpContent.EMPTY_LAST_CONTENT : io.netty.buffer.Unpooled.EMPTY_BUFFER;
        ctx.writeAndFlush(end).addListener((ChannelFutureListener) written -> ctx.close());
    }

    /** Reports that the connection missed a deadline (or its client cut a body short) and is being closed ({@code how}: e.g. " with 408"). */
    private void expired(String late, String how) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("Connection from " + ctx.channel().remoteAddress() + " closed" + how + ": " + late);
        }
        transport.faults.record(ctx.channel(), late);
    }

    /** Writes a problem with {@code Connection: close}, then closes the connection lingering; drops what is read meanwhile. */
    private void closeWithProblem(ChannelHandlerContext ctx, HttpResponseStatus status, String detail) {
        closeWithProblem(ctx, ProblemJson.response(status, detail));
    }

    /** Writes {@code problem} with {@code Connection: close}, then closes the connection lingering; drops what is read meanwhile. */
    private void closeWithProblem(ChannelHandlerContext ctx, FullHttpResponse problem) {
        closing = true;
        cancelDeadlines();
        answerBegun = true;
        problem.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        ctx.writeAndFlush(problem).addListener((ChannelFutureListener) written -> LingeringClose.of(ctx));
    }

    private void cancelDeadlines() {
        headerCheck = cancel(headerCheck);
        headStartedAt = NO_HEAD;
        bodyExpiry = cancel(bodyExpiry);
        halfCloseExpiry = cancel(halfCloseExpiry);
    }

    /** Cancels {@code expiry} if there is one; returns {@code null}, for {@code expiry = cancel(expiry)}. */
    private static ScheduledFuture<?> cancel(ScheduledFuture<?> expiry) {
        if (expiry != null) {
            expiry.cancel(false);
        }
        return null;
    }

    /** The last answer was written (or failed to be): the connection is idle unless a request waits. */
    private void answered() {
        if (busy && !untracked && unanswered.isEmpty()) {
            busy = false;
            transport.tracker.answered();
        }
    }

    private void untrack() {
        if (tracked && !untracked) {
            untracked = true;
            transport.tracker.closed(busy);
            busy = false;
        }
    }
}
