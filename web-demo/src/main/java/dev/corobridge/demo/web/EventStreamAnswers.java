package dev.corobridge.demo.web;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
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

    /** {@code events} as the answer to {@code request}. */
    static Mono<ServerResponse> ok(ServerRequest request, Flux<ServerSentEvent<Object>> events) {
        Flux<ServerSentEvent<Object>> body = events.onErrorResume(SubscriberFellBehindException.class, behind -> {
            if (LOG.isDebugEnabled()) {
                // The path matched an event route, whose ids were checked: printable as it is.
                LOG.debug("GET " + request.path() + ": " + behind.getMessage() + "; its connection is closed");
            }
            disconnect(request);
            return Flux.empty();
        });
        return ServerResponse.ok().contentType(MediaType.TEXT_EVENT_STREAM).body(BodyInserters.fromServerSentEvents(body));
    }

    /** Closes the request's connection (served by Reactor Netty; elsewhere, as in a mock exchange, the stream just ends). */
    private static void disconnect(ServerRequest request) {
        Object nativeResponse;
        try {
            nativeResponse = ServerHttpResponseDecorator.getNativeResponse(request.exchange().getResponse());
        } catch (IllegalArgumentException notAServerResponse) {
            return;
        }
        if (nativeResponse instanceof NettyOutbound outbound) {
            outbound.withConnection(Connection::dispose);
        }
    }
}
