package dev.corobridge.demo.web;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.demo.board.BoardException;

/**
 * The first filter of every {@code /api} request: starts its {@link HopTrace} (first hop: the HTTP
 * thread), writes the trace into the {@code Hop-Trace} header just before the response commits,
 * refuses requests once shutdown began (503, after reading and dropping the body), and caps the
 * body at {@code demo.max-body} (413) — by {@code Content-Length} up front, and by counting for
 * chunked bodies, so an oversize body is never buffered whole. Stateless apart from the shared {@link ServiceState}; thread-safe.
 */
public final class RequestGuardFilter implements WebFilter, Ordered {

    private final ServiceState state;
    private final long maxBody;

    public RequestGuardFilter(ServiceState state, long maxBody) {
        this.state = state;
        this.maxBody = maxBody;
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
        exchange.getAttributes().put(HopTraces.ATTRIBUTE, trace);
        exchange.getResponse().beforeCommit(() -> {
            exchange.getResponse().getHeaders().set(HopTraces.HEADER, HopTraces.format(trace));
            return Mono.empty();
        });
        if (state.isShuttingDown()) {
            // Read (and drop) the body before refusing: the refusal closes the connection, and body
            // bytes still arriving at a closed socket draw a reset that can overtake the 503.
            return new Limited(exchange.getRequest(), maxBody).getBody().doOnNext(DataBufferUtils::release)
                    .then(Mono.error(() -> new BoardException(BoardException.Kind.UNAVAILABLE, "the service is shutting down")));
        }
        long declared = exchange.getRequest().getHeaders().getContentLength();
        if (declared > maxBody) {
            return Mono.error(new PayloadTooLargeException(maxBody));
        }
        return chain.filter(exchange.mutate().request(new Limited(exchange.getRequest(), maxBody)).build());
    }

    /** A request whose body fails with 413 once it passes the limit. */
    private static final class Limited extends ServerHttpRequestDecorator {
        private final long limit;

        Limited(ServerHttpRequest delegate, long limit) {
            super(delegate);
            this.limit = limit;
        }

        @Override
        public Flux<DataBuffer> getBody() {
            AtomicLong seen = new AtomicLong();
            return super.getBody().handle((buf, sink) -> {
                if (seen.addAndGet(buf.readableByteCount()) > limit) {
                    DataBufferUtils.release(buf);
                    sink.error(new PayloadTooLargeException(limit));
                } else {
                    sink.next(buf);
                }
            });
        }
    }
}
