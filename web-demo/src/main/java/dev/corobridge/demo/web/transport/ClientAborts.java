package dev.corobridge.demo.web.transport;

import java.util.Objects;

import io.netty.channel.Channel;
import io.netty.handler.codec.DecoderException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.DisconnectedClientHelper;
import reactor.netty.Connection;
import reactor.netty.http.server.HttpServerResponse;

/**
 * Recognises, for the service's error handler, an exchange that ended through the client's doing:
 * the client closed or reset the connection (mid-body, or before the answer), or sent bytes the HTTP
 * decoder could not read, which the layer below Spring answered itself (or the
 * {@link ExchangeHandler} did, closing the connection). There is nobody to answer and it is not the
 * service's fault: one DEBUG line, no stack, and one fault for the {@link ClientFaultSummary} unless
 * the connection's fault was counted already (a deadline that closed it, say).
 *
 * <p>Thread-safe: immutable; the summary is thread-safe.
 */
public final class ClientAborts {

    private static final Log LOG = LogFactory.getLog(ClientAborts.class);

    private final ClientFaultSummary faults;

    public ClientAborts(ClientFaultSummary faults) {
        this.faults = Objects.requireNonNull(faults, "faults");
    }

    /**
     * Whether {@code error} ended {@code exchange} through the client's doing; if so it has been
     * logged and counted, and the caller answers nothing.
     */
    public boolean endedByClient(ServerWebExchange exchange, Throwable error) {
        String reason = reason(error);
        if (reason == null && answeredBelowSpring(exchange.getResponse())) {
            reason = "undecodable HTTP, answered by the HTTP layer (" + ClientText.printable(String.valueOf(error), 200) + ")";
        } else if (reason != null) {
            Channel channel = channel(exchange);
            if (channel == null || !ClientFaultSummary.isCounted(channel)) {
                faults.record("a request ended by the client: " + reason);
            }
        }
        if (reason != null && LOG.isDebugEnabled()) {
            LOG.debug("Request " + exchange.getRequest().getMethod() + " "
                    + ClientText.printable(exchange.getRequest().getPath().value(), 200) + " ended by the client: " + reason);
        }
        return reason != null;
    }

    /**
     * Why a request ended through the client's doing, when it did: the connection closed before the
     * exchange was complete, or the HTTP decoder could not read what the client sent. Null for every
     * other error.
     */
    static String reason(Throwable error) {
        if (DisconnectedClientHelper.isClientDisconnectedException(error)) {
            return "the connection closed before the exchange was complete";
        }
        for (Throwable t = error; t != null; t = t.getCause()) {
            boolean decoder = t instanceof DecoderException;
            for (StackTraceElement frame : decoder ? new StackTraceElement[0] : t.getStackTrace()) {
                decoder |= frame.getClassName().startsWith("io.netty.handler.codec.http.HttpObjectDecoder");
            }
            if (decoder) {
                return "undecodable HTTP (" + ClientText.printable(String.valueOf(t.getMessage()), 120) + ")";
            }
        }
        return null;
    }

    /** The Netty connection of an exchange; null where there is none (a mock exchange in a test). */
    private static Channel channel(ServerWebExchange exchange) {
        try {
            return ServerHttpRequestDecorator.getNativeRequest(exchange.getRequest()) instanceof Connection c
                    ? c.channel() : null;
        } catch (IllegalArgumentException notAServerRequest) {
            return null;
        }
    }

    /** Whether the HTTP layer below Spring already sent a response of its own for this request. */
    private static boolean answeredBelowSpring(ServerHttpResponse response) {
        if (response.isCommitted()) {
            return false;
        }
        try {
            return ServerHttpResponseDecorator.getNativeResponse(response) instanceof HttpServerResponse netty
                    && netty.hasSentHeaders();
        } catch (IllegalArgumentException notAServerResponse) {
            return false; // e.g. a mock response in a test: no layer below
        }
    }
}
