package dev.corobridge.demo.web.transport;

import org.springframework.http.HttpStatus;

import io.netty.handler.codec.http.HttpResponseStatus;

/**
 * The reason phrase of every status line the service writes, one per status: Spring's (RFC 9110's),
 * the same phrase that is a problem's {@code title}. Netty still names some statuses by their older
 * phrases (413 "Request Entity Too Large", 414 "Request-URI Too Long"), which Reactor Netty writes
 * for any status Spring sets; the transport replaces those on the way out. Immutable, thread-safe.
 */
final class ReasonPhrases {

    /** Index: status code; null where Netty's status can stay as it is. */
    private static final HttpResponseStatus[] CURRENT = new HttpResponseStatus[600];

    static {
        for (HttpStatus s : HttpStatus.values()) {
            HttpResponseStatus netty = HttpResponseStatus.valueOf(s.value());
            if (s.value() < CURRENT.length && CURRENT[s.value()] == null && !netty.reasonPhrase().equals(s.getReasonPhrase())) {
                CURRENT[s.value()] = new HttpResponseStatus(s.value(), s.getReasonPhrase());
            }
        }
    }

    private ReasonPhrases() {
    }

    /** {@code status} with the service's reason phrase. */
    static HttpResponseStatus current(HttpResponseStatus status) {
        int code = status.code();
        HttpResponseStatus current = code >= 0 && code < CURRENT.length ? CURRENT[code] : null;
        return current == null || current.reasonPhrase().equals(status.reasonPhrase()) ? status : current;
    }
}
