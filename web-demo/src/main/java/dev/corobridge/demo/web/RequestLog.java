package dev.corobridge.demo.web;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.web.reactive.function.server.ServerRequest;

/**
 * The DEBUG line both faces write when a handler starts, on the request's event loop
 * ({@code logging.level.dev.corobridge.demo=DEBUG}). With tracing on the class path, Reactor's
 * context propagation restores the request's MDC there, so the line carries its trace id, as do the
 * lines of the request's later steps (on the pump and the journal's ring), which tasks carry it to.
 */
public final class RequestLog {

    private static final Log LOG = LogFactory.getLog(RequestLog.class);

    private RequestLog() {
    }

    /** Logs that a handler starts on {@code request}. */
    public static void received(ServerRequest request) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("http: " + request.method() + " " + JsonInput.printable(request.path()));
        }
    }
}
