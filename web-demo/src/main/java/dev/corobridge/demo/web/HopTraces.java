package dev.corobridge.demo.web;

import org.springframework.http.server.reactive.observation.ServerRequestObservationContext;
import org.springframework.web.server.ServerWebExchange;

import dev.corobridge.bridge.Hop;
import dev.corobridge.bridge.HopTrace;

/**
 * The request's {@link HopTrace}: where it is kept and how it is written in the {@code Hop-Trace} header.
 *
 * <p>Where: under {@link #ATTRIBUTE} in the request's server observation context, which WebFlux
 * creates for every request; in the exchange's attributes only when there is none (an exchange built
 * without WebFlux's HTTP handler, as in a mock exchange). Not an exchange attribute first because
 * the exchange's attributes are a {@code ConcurrentHashMap} of 16 slots that grows at its twelfth
 * entry, and an annotated handler's request already holds eleven at its peak (Spring's own, the
 * observation context and the starter's coroutine context): a twelfth would make it grow on every
 * request. The observation context's map holds a handful.
 *
 * <p>Thread-safety: both maps are concurrent; the trace is set once, before the handler runs.
 */
public final class HopTraces {

    /** Key of the request's trace in its observation context (or, without one, in the exchange's attributes). */
    public static final String ATTRIBUTE = "dev.corobridge.demo.hopTrace";
    /** Response header carrying the trace. */
    public static final String HEADER = "Hop-Trace";

    private HopTraces() {
    }

    /** Keeps {@code trace} as the exchange's trace (see the class comment for where). */
    public static void attach(ServerWebExchange exchange, HopTrace trace) {
        ServerRequestObservationContext observed = observationContext(exchange);
        if (observed != null) {
            observed.put(ATTRIBUTE, trace);
        } else {
            exchange.getAttributes().put(ATTRIBUTE, trace);
        }
    }

    /** The exchange's trace, or a fresh one when the filter did not run (never {@code null}). */
    public static HopTrace of(ServerWebExchange exchange) {
        ServerRequestObservationContext observed = observationContext(exchange);
        HopTrace t = observed != null ? observed.get(ATTRIBUTE) : null;
        if (t == null) {
            t = exchange.getAttribute(ATTRIBUTE);
        }
        return t != null ? t : new HopTrace();
    }

    private static ServerRequestObservationContext observationContext(ServerWebExchange exchange) {
        return ServerRequestObservationContext.findCurrent(exchange.getAttributes()).orElse(null);
    }

    /** {@code context@thread[:note] > ...}; header-safe (each control character becomes {@code ?}). */
    public static String format(HopTrace trace) {
        StringBuilder b = new StringBuilder(64);
        for (Hop h : trace.getHops()) {
            if (!b.isEmpty()) {
                b.append(" > ");
            }
            appendSafe(b, h.context());
            b.append('@');
            appendSafe(b, h.thread());
            if (h.note() != null && !h.note().isEmpty()) {
                b.append(':');
                appendSafe(b, h.note());
            }
        }
        return b.toString();
    }

    /** Appends {@code s} with every control character ({@code \p{Cntrl}}: U+0000-U+001F, U+007F) as {@code ?}. */
    private static void appendSafe(StringBuilder b, String s) {
        if (!hasControl(s)) {
            b.append(s); // names are almost always clean: one array copy, not a char at a time
            return;
        }
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            b.append(isControl(c) ? '?' : c);
        }
    }

    private static boolean hasControl(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            if (isControl(s.charAt(i))) {
                return true;
            }
        }
        return false;
    }

    private static boolean isControl(char c) {
        return c < 0x20 || c == 0x7F;
    }
}
