package dev.corobridge.demo.web;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.web.reactive.function.server.ServerRequest;

/**
 * The DEBUG line both faces write when a handler starts, on the request's event loop
 * ({@code logging.level.dev.corobridge.demo=DEBUG}). The faces write it with the request's Reactor
 * context set as the thread's (Reactor's default, limited, propagation does not), so with tracing on
 * the class path the line carries the request's trace id, as do the lines of the request's later
 * steps (on the pump and the journal's ring), which tasks carry it to. When the line is off the
 * faces skip that restore.
 */
public final class RequestLog {

    private static final Log LOG = LogFactory.getLog(RequestLog.class);

    private RequestLog() {
    }

    /** Whether {@link #received} writes anything. */
    public static boolean enabled() {
        return LOG.isDebugEnabled();
    }

    /** Logs that a handler starts on {@code request}. */
    public static void received(ServerRequest request) {
        if (LOG.isDebugEnabled()) {
            LOG.debug("http: " + request.method() + " " + JsonInput.printable(request.path()));
        }
    }
}
