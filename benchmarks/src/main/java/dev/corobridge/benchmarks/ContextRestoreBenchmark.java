package dev.corobridge.benchmarks;

import dev.corobridge.context.CapturedContext;
import dev.corobridge.context.ContextPropagation;
import dev.corobridge.context.RestoredContext;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.observation.Observation;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.slf4j.MDC;

/**
 * What one hop's context costs, taken apart: one restore of a captured request context on a thread
 * that has none, and putting the thread's own (empty) context back, as every hop of a task that
 * carries a context does twice. The context study ({@link ContextCase}) measures whole hops; this
 * one says which part of the per-hop cost is the MDC and which is the tracing context, and what the
 * peers' mechanism costs for the same work.
 *
 * <p>{@code carries}: {@code mdc} (two MDC entries), {@code observation} (an {@link Observation} of
 * {@link RequestContext#REGISTRY} in scope, restored through Micrometer's
 * {@code ObservationThreadLocalAccessor}), {@code both} (what a traced request carries).
 * {@code impl}:
 * <ul>
 *   <li>{@code corobridge}: {@link CapturedContext#restore()} and {@link RestoredContext#close()}, what a
 *       task's step does;</li>
 *   <li>{@code peer}: what a coroutine carrying kotlinx-coroutines-slf4j's {@code MDCContext} and
 *       Spring's {@code PropagationContextElement} does at each resume (the mechanism Reactor's
 *       automatic propagation uses too): the MDC as {@code MDCContext} sets it (a copy of the
 *       thread's map kept, {@code MDC.setContextMap}, then {@code setContextMap}/{@code clear}
 *       back), and a Micrometer {@link ContextSnapshot} captured with {@code clearMissing}, put in
 *       place with {@code setThreadLocals()} and its scope closed;</li>
 *   <li>{@code floor}: the least any mechanism has to do for the same values, with nothing of its
 *       own around it: the two MDC entries put and removed ({@code MDC.put}, {@code MDC.remove}),
 *       and the captured {@link Observation}'s own {@code openScope()} and its scope's
 *       {@code close()} (what Micrometer's accessor calls, and what lets a tracing handler put its
 *       span in scope). What a restore costs over this row is the mechanism's; this row is the
 *       observation's and the MDC's own, which no propagation can skip.</li>
 * </ul>
 * The context is captured on another thread, once per trial; each operation checks on the
 * benchmark thread that what was restored arrived (the MDC value and the span in scope, per
 * {@code carries}) and, after closing, that nothing is left behind: a mismatch fails the run.
 *
 * <p><b>Thread-safety.</b> One state per benchmark thread ({@link Scope#Thread}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class ContextRestoreBenchmark {

    @Param({"mdc", "observation", "both"})
    public String carries;

    @Param({"corobridge", "peer", "floor"})
    public String impl;

    /**
     * {@code own}: each benchmark thread restores a context captured for it alone; {@code shared}:
     * all restore one captured context (one {@link Observation} in scope on every thread at once, as
     * in the context study's PumpHop N=64, where 64 coroutines carry one request's context). Differs
     * only with more than one thread ({@code -t 2}).
     */
    @Param({"own"})
    public String sharing;

    /** One capture that every thread of a run may share ({@code sharing=shared}), made by the first. */
    @State(Scope.Benchmark)
    public static class Shared {
        private Capture capture;

        synchronized Capture get(boolean mdc, boolean observation) throws InterruptedException {
            if (capture == null) {
                capture = Capture.of(mdc, observation);
            }
            return capture;
        }
    }

    private boolean mdc;
    private boolean observation;
    private CapturedContext captured;
    private ContextSnapshot snapshot;
    private Map<String, String> mdcCopy;
    private long spanId;
    /** The observation in scope where the context was captured (null for {@code carries=mdc}). */
    private Observation capturedObservation;

    @Setup(Level.Trial)
    public void setUp(Shared shared) throws Exception {
        mdc = carries.equals("mdc") || carries.equals("both");
        observation = carries.equals("observation") || carries.equals("both");
        if (!mdc && !observation) {
            throw new IllegalArgumentException("carries is one of mdc, observation, both: " + carries);
        }
        if (!impl.equals("corobridge") && !impl.equals("peer") && !impl.equals("floor")) {
            throw new IllegalArgumentException("impl is one of corobridge, peer, floor: " + impl);
        }
        Capture c = switch (sharing) {
            case "own" -> Capture.of(mdc, observation);
            case "shared" -> shared.get(mdc, observation);
            default -> throw new IllegalArgumentException("sharing is one of own, shared: " + sharing);
        };
        captured = c.captured;
        snapshot = c.snapshot;
        mdcCopy = c.mdcCopy;
        spanId = c.spanId;
        capturedObservation = c.observation;
        if (MDC.get(RequestContext.REQUEST_KEY) != null || SpanScopeHandler.currentSpanId() != 0) {
            throw new IllegalStateException("the benchmark thread must start without a context");
        }
    }

    /** A request context captured on a thread of its own, both ways (corobridge's and the peers'). */
    record Capture(CapturedContext captured, ContextSnapshot snapshot, Map<String, String> mdcCopy, long spanId,
                   Observation observation) {

        static Capture of(boolean mdc, boolean observation) throws InterruptedException {
            ContextPropagation.setEnabled(true);
            ContextSnapshotFactory factory = ContextSnapshotFactory.builder().clearMissing(true).build();
            AtomicReference<Object> result = new AtomicReference<>();
            Thread capturing = new Thread(() -> {
                Observation.Scope scope = null;
                Observation started = null;
                try {
                    if (mdc) {
                        MDC.put(RequestContext.REQUEST_KEY, RequestContext.REQUEST_ID);
                        MDC.put(RequestContext.USER_KEY, RequestContext.USER_ID);
                    }
                    long span = 0;
                    if (observation) {
                        started = Observation.start("corobridge.bench.restore", RequestContext.REGISTRY);
                        scope = started.openScope();
                        span = SpanScopeHandler.currentSpanId();
                    }
                    result.set(new Capture(ContextPropagation.capture(), factory.captureAll(),
                            MDC.getCopyOfContextMap(), span, started));
                } catch (Throwable e) {
                    result.set(e);
                } finally {
                    if (scope != null) {
                        scope.close();
                    }
                    MDC.clear();
                }
            }, "context-capture");
            capturing.start();
            capturing.join();
            if (result.get() instanceof Throwable e) {
                throw new IllegalStateException("capturing the context failed", e);
            }
            Capture c = (Capture) result.get();
            if (c.captured.isEmpty()) {
                throw new IllegalStateException("nothing was captured (no SLF4J provider or context-propagation?)");
            }
            return c;
        }
    }

    /** One restore, the check that it arrived, and the thread's own context put back. */
    @Benchmark
    public long restoreAndPutBack() {
        long seen;
        if (impl.equals("corobridge")) {
            try (RestoredContext r = captured.restore()) {
                seen = seen();
            }
        } else if (impl.equals("floor")) {
            seen = floor();
        } else {
            Map<String, String> before = MDC.getCopyOfContextMap();
            setMdc(mdcCopy);
            try (ContextSnapshot.Scope s = snapshot.setThreadLocals()) {
                seen = seen();
            } finally {
                setMdc(before);
            }
        }
        if (SpanScopeHandler.currentSpanId() != 0 || MDC.get(RequestContext.REQUEST_KEY) != null) {
            throw new IllegalStateException(impl + " left the restored context on the thread");
        }
        return seen;
    }

    /**
     * {@code impl=floor}: the values made visible and removed again by the MDC's and the
     * observation's own calls, nothing else (the thread had none of them before).
     */
    private long floor() {
        if (mdc) {
            MDC.put(RequestContext.REQUEST_KEY, RequestContext.REQUEST_ID);
            MDC.put(RequestContext.USER_KEY, RequestContext.USER_ID);
        }
        try {
            if (!observation) {
                return seen();
            }
            try (Observation.Scope s = capturedObservation.openScope()) {
                return seen();
            }
        } finally {
            if (mdc) {
                MDC.remove(RequestContext.USER_KEY);
                MDC.remove(RequestContext.REQUEST_KEY);
            }
        }
    }

    /** The span in scope (or 1 for the MDC alone), after checking both against {@code carries}. */
    private long seen() {
        String request = MDC.get(RequestContext.REQUEST_KEY);
        long span = SpanScopeHandler.currentSpanId();
        if (mdc != RequestContext.REQUEST_ID.equals(request) || span != (observation ? spanId : 0)) {
            throw new IllegalStateException(impl + " restored MDC " + request + " and span " + span
                    + " for carries=" + carries);
        }
        return span + (request == null ? 0 : 1);
    }

    /** kotlinx-coroutines-slf4j's {@code MDCContext.setCurrent}. */
    private static void setMdc(Map<String, String> map) {
        if (map == null) {
            MDC.clear();
        } else {
            MDC.setContextMap(map);
        }
    }
}
