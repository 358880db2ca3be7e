package dev.corobridge.demo.web;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.handler.TracingObservationHandler;
import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.web.server.ServerWebExchange;

/**
 * The trace id of a request (Micrometer Tracing's span of the server's observation), sent to the
 * client in the {@value #HEADER} response header so the page can show it next to the hop trace and
 * a reader can find the request's log lines.
 */
public final class TraceIds {

    /** Response header carrying the request's trace id. */
    public static final String HEADER = "Trace-Id";

    private TraceIds() {
    }

    /** The request's trace id, or {@code null} when it is not traced. */
    public static String of(ServerWebExchange exchange) {
        Observation.Context context = ServerRequestObservationContext.findCurrent(exchange.getAttributes()).orElse(null);
        if (context == null) {
            return null;
        }
        TracingObservationHandler.TracingContext tracing = context.get(TracingObservationHandler.TracingContext.class);
        Span span = tracing == null ? null : tracing.getSpan();
        return span == null ? null : span.context().traceId();
    }
}
