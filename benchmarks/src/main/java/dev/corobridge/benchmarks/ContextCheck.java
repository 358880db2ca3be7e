package dev.corobridge.benchmarks;

import org.slf4j.MDC;

/**
 * Looks, at every hop, at the thread the hop runs on (the pump's, the executor's) for the
 * {@link RequestContext}: both MDC entries and the span of its observation in scope. A hop
 * {@linkplain #see() counts} as carried (all three there, with the right values), bare (none of
 * them) or wrong (anything else: a part missing, a stale span, a value of another request). Each
 * iteration {@link #take(boolean) takes} the counts and fails the run unless every hop was carried
 * when the benchmark thread had a request context, and bare when it had none: a study row whose
 * hops did not restore (or leaked) the context would otherwise print a plausible number.
 *
 * <p><b>Thread-safety.</b> {@link #see()} runs inside the hops, one at a time (the targets run one
 * hop at a time, and TaskOverhead's bodies one after another, each ordered before the next by the
 * task's completion); {@link #expect} and {@link #take} run on the benchmark thread between
 * invocations, ordered with the hops by the benchmark's wait for them.
 */
public final class ContextCheck {

    /** The counts of one iteration. */
    record Tally(long carried, long bare) {
    }

    /** The span id a carried hop must see; 0 when the benchmark thread has no request context. */
    private volatile long expectedSpan;
    private long carried;
    private long bare;
    private long wrong;
    private String firstWrong;

    /** Sets what the next hops must see: the request context's span, or 0 for none. */
    void expect(long spanId) {
        expectedSpan = spanId;
    }

    /** Called inside each hop, on the hop's thread. */
    public void see() {
        String request = MDC.get(RequestContext.REQUEST_KEY);
        String user = MDC.get(RequestContext.USER_KEY);
        long span = SpanScopeHandler.currentSpanId();
        long expected = expectedSpan;
        if (request == null && user == null && span == 0) {
            bare++;
        } else if (expected != 0 && span == expected && RequestContext.REQUEST_ID.equals(request)
                && RequestContext.USER_ID.equals(user)) {
            carried++;
        } else {
            if (wrong++ == 0) {
                firstWrong = "on " + Thread.currentThread().getName() + ": " + RequestContext.REQUEST_KEY + "=" + request
                        + ", " + RequestContext.USER_KEY + "=" + user + ", span " + span + " (expected " + expected + ")";
            }
        }
    }

    /**
     * The counts since the last take, reset; throws unless all of them are carried hops
     * ({@code carries}) or all bare ones (not), and there was at least one.
     */
    Tally take(String what, boolean carries) {
        Tally t = new Tally(carried, bare);
        long w = wrong;
        String first = firstWrong;
        carried = 0;
        bare = 0;
        wrong = 0;
        firstWrong = null;
        if (w != 0) {
            throw new IllegalStateException(what + ": " + w + " hops saw a partial or foreign context, the first " + first);
        }
        if (t.carried() + t.bare() == 0) {
            throw new IllegalStateException(what + ": no hop was checked");
        }
        if (carries && t.bare() != 0) {
            throw new IllegalStateException(what + ": the context did not travel: " + t.bare() + " of "
                    + (t.carried() + t.bare()) + " hops ran without it");
        }
        if (!carries && t.carried() != 0) {
            throw new IllegalStateException(what + ": " + t.carried() + " hops saw a request context nobody set");
        }
        return t;
    }
}
