package dev.corobridge.demo.web;

import java.util.StringJoiner;
import java.util.regex.Pattern;

import org.springframework.web.server.ServerWebExchange;

import dev.corobridge.bridge.Hop;
import dev.corobridge.bridge.HopTrace;

/** The request's {@link HopTrace}: where it is kept and how it is written in the {@code Hop-Trace} header. */
public final class HopTraces {

    /** Exchange attribute holding the request's trace ({@code @RequestAttribute(HopTraces.ATTRIBUTE)}). */
    public static final String ATTRIBUTE = "dev.corobridge.demo.hopTrace";
    /** Response header carrying the trace. */
    public static final String HEADER = "Hop-Trace";

    /** Control characters cannot go into a header value. */
    private static final Pattern CONTROL = Pattern.compile("\\p{Cntrl}");

    private HopTraces() {
    }

    /** The exchange's trace, or a fresh one when the filter did not run (never {@code null}). */
    public static HopTrace of(ServerWebExchange exchange) {
        HopTrace t = exchange.getAttribute(ATTRIBUTE);
        return t != null ? t : new HopTrace();
    }

    /** {@code context@thread[:note] > ...}; header-safe (no control characters). */
    public static String format(HopTrace trace) {
        StringJoiner j = new StringJoiner(" > ");
        for (Hop h : trace.getHops()) {
            String step = h.context() + "@" + h.thread() + (h.note() == null || h.note().isEmpty() ? "" : ":" + h.note());
            j.add(CONTROL.matcher(step).replaceAll("?"));
        }
        return j.toString();
    }
}
