package dev.corobridge.demo.web;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.AbstractServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.web.transport.ServiceState;

/**
 * The first filter of every {@code /api} request: starts its {@link HopTrace} (first hop: the HTTP
 * thread), writes the trace into the {@code Hop-Trace} header just before the response commits,
 * refuses requests once shutdown began (503, after reading and dropping the body), and caps the
 * body at {@code demo.max-body} (413) — by {@code Content-Length} up front, and by counting for
 * chunked bodies, so an oversize body is never buffered whole.
 *
 * <p>It also refuses what the layers below let through but cannot be read as the client meant it:
 * a {@code Transfer-Encoding} other than a single {@code chunked} (400, then the connection closes:
 * the body's length is unknown, RFC 9112 section 6.3), a {@code Content-Encoding} the service does
 * not decode (415: the body would be read as if it were plain), more than one {@code Content-Type}
 * (400: which one applies is a guess), an {@code If-Match} with entity tags (412: the service sends
 * none, so none can match; {@code *} passes), and a body that is not well-formed UTF-8 or holds a NUL byte
 * ({@link Utf8Validator}, 400, checked as the body streams in: a NUL is what UTF-16 and UTF-32 text
 * gives away, which a JSON parser would otherwise read). An {@code Accept} that refuses types with {@code q=0} is
 * rewritten so that Spring's negotiation honours the refusal ({@link RefusedMediaTypes}).
 *
 * <p>In cluster mode every {@code /api} answer names the replica that served it in the
 * {@value #SERVED_BY} header (behind a load balancer, the one the client reached).
 *
 * <p>Stateless apart from the shared {@link ServiceState}; thread-safe.
 */
public final class RequestGuardFilter implements WebFilter, Ordered {

    /** Response header naming the replica that served the request (cluster mode). */
    public static final String SERVED_BY = "Served-By";

    private final ServiceState state;
    private final long maxBody;
    private final String servedBy;

    public RequestGuardFilter(ServiceState state, long maxBody) {
        this(state, maxBody, null);
    }

    /** @param servedBy the replica id for {@value #SERVED_BY}; {@code null}: no such header (one process) */
    public RequestGuardFilter(ServiceState state, long maxBody, String servedBy) {
        this.state = state;
        this.maxBody = maxBody;
        this.servedBy = servedBy;
    }

    @Override
    public int getOrder() {
        return Ordered.HIGHEST_PRECEDENCE;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        String path = exchange.getRequest().getPath().pathWithinApplication().value();
        if (!path.equals("/api") && !path.startsWith("/api/")) {
            return chain.filter(exchange);
        }
        HopTrace trace = new HopTrace();
        trace.record("http", "request");
        HopTraces.attach(exchange, trace);
        exchange.getResponse().beforeCommit(() -> {
            exchange.getResponse().getHeaders().set(HopTraces.HEADER, HopTraces.format(trace));
            String traceId = TraceIds.of(exchange);
            if (traceId != null) {
                exchange.getResponse().getHeaders().set(TraceIds.HEADER, traceId);
            }
            if (servedBy != null) {
                exchange.getResponse().getHeaders().set(SERVED_BY, servedBy);
            }
            return Mono.empty();
        });
        if (state.isShuttingDown()) {
            // Read (and drop) the body before refusing: the refusal closes the connection, and body
            // bytes still arriving at a closed socket draw a reset that can overtake the 503.
            return new Limited(exchange.getRequest(), maxBody, false).getBody().doOnNext(DataBufferUtils::release)
                    .then(Mono.error(() -> new BoardException(BoardException.Kind.UNAVAILABLE, "the service is shutting down")));
        }
        List<MediaType> accept = RefusedMediaTypes.accept(exchange.getRequest().getHeaders());
        boolean preflight = HttpMethod.OPTIONS.equals(exchange.getRequest().getMethod())
                && exchange.getRequest().getHeaders().containsHeader(HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD);
        if (accept == null && !preflight) {
            return checkFraming(exchange, chain);
        }
        return checkFraming(exchange.mutate().request(r -> r.headers(h -> {
            if (accept != null) {
                h.setAccept(accept);
            }
            if (preflight) {
                // The service allows no other origin, so a CORS preflight is an OPTIONS like any
                // other (Allow, or 404 for a path that does not exist); Spring would answer it an
                // empty 200 of its own, with no Allow, on any path. No Access-Control-Allow-* either
                // way: a browser keeps refusing the cross-origin request.
                h.remove(HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD);
                h.remove(HttpHeaders.ACCESS_CONTROL_REQUEST_HEADERS);
            }
        })).build(), chain);
    }

    /** The checks of the request's framing and body (see the class comment), then the chain. */
    private Mono<Void> checkFraming(ServerWebExchange exchange, WebFilterChain chain) {
        HttpHeaders headers = exchange.getRequest().getHeaders();
        List<String> transferCodings = headers.getValuesAsList(HttpHeaders.TRANSFER_ENCODING);
        if (!transferCodings.isEmpty() && !(transferCodings.size() == 1 && transferCodings.get(0).equalsIgnoreCase("chunked"))) {
            // The body's end cannot be found: nothing more on this connection can be trusted.
            exchange.getResponse().getHeaders().set(HttpHeaders.CONNECTION, "close");
            return Mono.error(new BoardException(BoardException.Kind.INVALID, "Transfer-Encoding '"
                    + JsonInput.printable(String.join(", ", transferCodings)) + "' is not supported; send a "
                    + "Content-Length or 'Transfer-Encoding: chunked'"));
        }
        List<String> contentCodings = headers.getValuesAsList(HttpHeaders.CONTENT_ENCODING);
        for (String coding : contentCodings) {
            if (!coding.equalsIgnoreCase("identity")) {
                exchange.getResponse().getHeaders().set(HttpHeaders.ACCEPT_ENCODING, "identity");
                return Mono.error(new ResponseStatusException(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Content-Encoding '"
                        + JsonInput.printable(String.join(", ", contentCodings)) + "' is not supported; send the body "
                        + "without a content coding"));
            }
        }
        List<String> ifMatch = headers.getValuesAsList(HttpHeaders.IF_MATCH);
        if (!ifMatch.isEmpty() && !ifMatch.contains("*")) {
            // The service sends no entity tags, so none can match (RFC 9110, section 13.1.1): the
            // method must not be performed. Its own precondition is expectedVersion.
            return Mono.error(new ResponseStatusException(HttpStatus.PRECONDITION_FAILED, "If-Match '"
                    + JsonInput.printable(String.join(", ", ifMatch)) + "' cannot match: this service sends no entity tags; "
                    + "use expectedVersion (a note's version) as the precondition of an edit or a delete"));
        }
        List<String> contentTypes = headers.get(HttpHeaders.CONTENT_TYPE);
        if (contentTypes != null && contentTypes.size() > 1) {
            return Mono.error(new BoardException(BoardException.Kind.INVALID,
                    "more than one Content-Type header; send exactly one"));
        }
        long declared = headers.getContentLength();
        if (declared > maxBody) {
            return Mono.error(new PayloadTooLargeException(maxBody));
        }
        if (declared <= 0 && transferCodings.isEmpty() && isHttp1(exchange.getRequest())) {
            return chain.filter(exchange); // no body (RFC 9112 section 6.3): nothing to cap or validate
        }
        return chain.filter(exchange.mutate().request(new Limited(exchange.getRequest(), maxBody, true)).build());
    }

    /** An HTTP/1.x request of Reactor Netty's, whose body length its headers decide (unlike HTTP/2's). */
    private static boolean isHttp1(ServerHttpRequest request) {
        return request instanceof AbstractServerHttpRequest r && r.getNativeRequest() instanceof HttpServerRequest n
                && n.version().majorVersion() == 1;
    }

    /** Constant: WebFlux's filter chain asks for it on every request (its checkpoint description). */
    @Override
    public String toString() {
        return "RequestGuardFilter";
    }

    /**
     * A request whose body fails with 413 once it passes the limit and, if asked, with 400 at the
     * first byte that is not well-formed UTF-8 or when it ends inside a UTF-8 sequence.
     */
    private static final class Limited extends ServerHttpRequestDecorator {
        /**
         * Body chunks asked for at a time. Bounded on purpose: Reactor Netty hands a reader that asks
         * for everything ({@code Long.MAX_VALUE}, as Spring's decoders do) a connection reset twice (its
         * fast path keeps the reader after the first {@code onError}, and closing the connection sends
         * the error again); the second lands in Reactor's {@code onErrorDropped}, an ERROR with a
         * stack for what is only a client that went away. With bounded demand it ends the reader once.
         */
        private static final int BODY_PREFETCH = 32;

        private final long limit;
        private final boolean utf8;

        Limited(ServerHttpRequest delegate, long limit, boolean utf8) {
            super(delegate);
            this.limit = limit;
            this.utf8 = utf8;
        }

        @Override
        public Flux<DataBuffer> getBody() {
            AtomicLong seen = new AtomicLong();
            Utf8Validator validator = utf8 ? Utf8Validator.forJsonText() : null;
            Flux<DataBuffer> body = super.getBody().limitRate(BODY_PREFETCH).handle((buf, sink) -> {
                if (seen.addAndGet(buf.readableByteCount()) > limit) {
                    DataBufferUtils.release(buf);
                    sink.error(new PayloadTooLargeException(limit));
                    return;
                }
                if (validator != null) {
                    try {
                        for (int i = buf.readPosition(), end = buf.writePosition(); i < end; i++) {
                            validator.accept(buf.getByte(i));
                        }
                    } catch (BoardException e) {
                        DataBufferUtils.release(buf);
                        sink.error(e);
                        return;
                    }
                }
                sink.next(buf);
            });
            if (validator == null) {
                return body;
            }
            return body.concatWith(Flux.defer(() -> {
                validator.finish(); // throws if the body ended inside a sequence
                return Flux.empty();
            }));
        }
    }
}
