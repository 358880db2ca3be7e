package dev.corobridge.benchmarks;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The "tracing context" of the context propagation cost study: an {@link ObservationHandler} that
 * does what a tracer's handler minimally does, and no more. Each observation gets a span id when it
 * starts; opening a scope of the observation on a thread makes that span the thread's current one
 * (a thread-local, as Brave's and OpenTelemetry's current-context storage are), remembering the
 * span it replaced; closing the scope puts that one back (none: {@code null}, set like theirs,
 * the thread-local's entry kept).
 *
 * <p>corobridge restores an {@link Observation} through Micrometer's
 * {@code ObservationThreadLocalAccessor}, which opens a scope of it on the thread the hop runs on
 * and closes it afterwards, so this handler runs twice per restored hop, like a tracer would, and
 * {@link #currentSpanId()} on the hop's thread says whether the tracing context arrived.
 *
 * <p><b>Thread-safety.</b> Safe for concurrent use: the scopes of one observation may be open on
 * several threads at once (each thread has its own chain of scopes); ids come from an atomic counter.
 */
final class SpanScopeHandler implements ObservationHandler<Observation.Context> {

    /** Where a started observation keeps its span id in its context. */
    private static final Class<SpanScopeHandler> SPAN_ID = SpanScopeHandler.class;

    private static final AtomicLong IDS = new AtomicLong();
    private static final ThreadLocal<SpanInScope> CURRENT = new ThreadLocal<>();

    /** The span in scope on a thread, and the one it replaced there. */
    private record SpanInScope(long spanId, SpanInScope previous) {
    }

    /** The span id in scope on the current thread, or 0 when none is. */
    static long currentSpanId() {
        SpanInScope s = CURRENT.get();
        return s == null ? 0 : s.spanId();
    }

    @Override
    public void onStart(Observation.Context context) {
        context.put(SPAN_ID, IDS.incrementAndGet());
    }

    @Override
    public void onScopeOpened(Observation.Context context) {
        Long id = context.get(SPAN_ID);
        if (id == null) {
            throw new IllegalStateException("scope opened on an observation that was not started: " + context);
        }
        CURRENT.set(new SpanInScope(id, CURRENT.get()));
    }

    @Override
    public void onScopeClosed(Observation.Context context) {
        SpanInScope s = CURRENT.get();
        if (s == null) {
            return; // closed more often than opened: nothing of ours to undo
        }
        // Set, not remove, as Brave's scopes and OpenTelemetry's storage do: removing the thread's
        // entry when the outermost scope closes made the next scope create it again (two map
        // entries per restored hop), a cost no real tracer has.
        CURRENT.set(s.previous());
    }

    @Override
    public void onScopeReset(Observation.Context context) {
        CURRENT.remove(); // Micrometer resets a thread's scopes when it clears the current observation
    }

    @Override
    public boolean supportsContext(Observation.Context context) {
        return true;
    }
}
