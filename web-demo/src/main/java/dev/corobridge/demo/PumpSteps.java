package dev.corobridge.demo;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.pump.MessagePump;

/**
 * A step of a request on the pump: recorded in the request's trace as {@code pump:step} (on the
 * thread that runs it), and written as a DEBUG line {@code pump: step}
 * ({@code logging.level.dev.corobridge.demo=DEBUG}). Stateless; call it on the pump.
 */
final class PumpSteps {

    private static final Log LOG = LogFactory.getLog(BoardService.class);

    private PumpSteps() {
    }

    static void record(MessagePump pump, HopTrace trace, String step) {
        if (trace != null) {
            trace.record(pump.getName(), step);
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("pump: " + step);
        }
    }
}
