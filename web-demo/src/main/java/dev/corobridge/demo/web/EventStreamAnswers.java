package dev.corobridge.demo.web;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.Connection;
import reactor.netty.NettyOutbound;

import dev.corobridge.demo.board.SubscriberFellBehindException;

/**
 * The event-stream answers of both faces: {@code 200 text/event-stream} with the service's events,
 * and a subscriber that fell behind ({@link SubscriberFellBehindException}) disconnected: its
 * connection closes at once, which an {@code EventSource} takes as the cue to reconnect (and get a
 * fresh snapshot). Ending the answer normally instead would leave the client waiting on whatever
 * the server still buffers for it, and an error after the answer began would be logged as the
 * service's fault. Logged at DEBUG, as a client's trouble. Stateless; thread-safe.
 */
final class EventStreamAnswers {

    private static final Log LOG = LogFactory.getLog(EventStreamAnswers.class);

    private EventStreamAnswers() {
    }

    /**
     * {@code events} as the answer to {@code request}, for as long as its connection lasts: the
     * stream (and so its subscription to the board) ends when the connection closes, whoever closes
     * it and whenever (a client that resets right after its request is gone before the answer's
     * first write, and nothing downstream would cancel the stream then).
     */
    static Mono<ServerResponse> ok(ServerRequest request, Flux<ServerSentEvent<Object>> events) {
        if (HttpMethod.HEAD.equals(request.method())) {
            // Spring never subscribes a streamed body for HEAD, so the stream's own failure (an
            // unknown board's 404) would never come: wait for its first event, then answer the
            // head GET would have (RFC 9110), and let the subscription go.
            return events.take(1).then(ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM).build());
        }
        Flux<ServerSentEvent<Object>> body = events.takeUntilOther(connectionClosed(request))
                .onErrorResume(SubscriberFellBehindException.class, behind -> {
            if (LOG.isDebugEnabled()) {
                // The path matched an event route, whose ids were checked: printable as it is.
                LOG.debug("GET " + request.path() + ": " + behind.getMessage() + "; its connection is closed");
            }
            disconnect(request);
            return Flux.empty();
        });
        return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM).body(BodyInserters.fromServerSentEvents(body));
    }

    /**
     * Completes when the request's connection has closed (at once if it has already); never for an
     * exchange not served by Reactor Netty (a mock exchange).
     */
    private static Mono<Void> connectionClosed(ServerRequest request) {
        NettyOutbound outbound = nettyOutbound(request);
        if (outbound == null) {
            return Mono.never();
        }
        Sinks.Empty<Void> closed = Sinks.empty();
        outbound.withConnection(c -> c.onDispose(closed::tryEmitEmpty));
        return closed.asMono();
    }

    private static NettyOutbound nettyOutbound(ServerRequest request) {
        Object nativeResponse;
        try {
            nativeResponse = ServerHttpResponseDecorator.getNativeResponse(request.exchange().getResponse());
        } catch (IllegalArgumentException notAServerResponse) {
            return null;
        }
        return nativeResponse instanceof NettyOutbound outbound ? outbound : null;
    }

    /** Closes the request's connection (served by Reactor Netty; elsewhere, as in a mock exchange, the stream just ends). */
    private static void disconnect(ServerRequest request) {
        NettyOutbound outbound = nettyOutbound(request);
        if (outbound != null) {
            outbound.withConnection(Connection::dispose);
        }
    }
}
