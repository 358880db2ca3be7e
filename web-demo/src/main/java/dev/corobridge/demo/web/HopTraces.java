package dev.corobridge.demo.web;


import org.springframework.web.server.ServerWebExchange;

import dev.corobridge.bridge.Hop;
import dev.corobridge.bridge.HopTrace;

/** The request's {@link HopTrace}: where it is kept and how it is written in the {@code Hop-Trace} header. */
public final class HopTraces {

    /** Exchange attribute holding the request's trace ({@code @RequestAttribute(HopTraces.ATTRIBUTE)}). */
    public static final String ATTRIBUTE = "dev.corobridge.demo.hopTrace";
    /** Response header carrying the trace. */
    public static final String HEADER = "Hop-Trace";

    private HopTraces() {
    }

    /** The exchange's trace, or a fresh one when the filter did not run (never {@code null}). */
    public static HopTrace of(ServerWebExchange exchange) {
        HopTrace t = exchange.getAttribute(ATTRIBUTE);
        return t != null ? t : new HopTrace();
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
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7F ? '?' : c);
        }
    }
}
