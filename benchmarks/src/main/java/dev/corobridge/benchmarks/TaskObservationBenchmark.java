package dev.corobridge.benchmarks;

import brave.Tracing;
import brave.baggage.BaggageFields;
import brave.baggage.CorrelationScopeConfig.SingleCorrelationField;
import brave.context.slf4j.MDCScopeDecorator;
import brave.handler.SpanHandler;
import brave.propagation.ThreadLocalCurrentTraceContext;
import brave.sampler.Sampler;
import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Task;
import dev.corobridge.observation.TaskObservations;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.handler.TracingAwareMeterObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one task's observation costs ({@code TaskObservations}, the Spring Boot starter's span per
 * task): a trivial {@code Task.start} run inline on the benchmark thread, inside a request's
 * observation, with the observation's handlers chosen per row ({@code handlers}):
 * <ul>
 *   <li>{@code off}: tasks not observed (the starter's {@code corobridge.observation.enabled=false});
 *       the request's observation has the handlers of {@code boot};</li>
 *   <li>{@code plumbing}: observed, in a registry with one handler that does nothing: what
 *       corobridge and Micrometer's {@code Observation} itself cost per task, without any
 *       handler's work;</li>
 *   <li>{@code meters}: Micrometer's {@code DefaultMeterObservationHandler} on a
 *       {@code SimpleMeterRegistry} (a timer, a long-task timer, a counter per hop event);</li>
 *   <li>{@code tracing}: Micrometer Tracing's handlers over Brave (a span per task, its scope, the
 *       trace and span ids in the MDC), sampling 10 % of traces as Spring Boot does by default, and
 *       no exporter (finished spans go to a handler that keeps nothing, as in the demo);</li>
 *   <li>{@code boot}: both, grouped as Spring Boot 4 groups them (the meter handler made
 *       tracing-aware, the tracing handlers first-matching): what the demo service runs with.</li>
 * </ul>
 * The executor runs each step on the calling thread, so that no wake-up or hand-over between
 * threads is in the figures: one op is one task's start, its observed step (begin, one hop event,
 * scope opened and closed, end) and its outcome. Installed as the starter installs it
 * ({@code installScoped}). {@value #OPS} tasks per invocation inside one request observation, which
 * each task's observation has as its parent. Every body checks what is current while it runs (the
 * task's observation, a child of the request's; in {@code off} the request's), and the run fails
 * otherwise. Use {@code -prof gc} for bytes per task.
 *
 * <p>Not thread-safe: JMH runs it on one thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 1)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class TaskObservationBenchmark {

    static final int OPS = 256;
    private static final Integer ONE = 1;
    /** Runs a task's step on the thread that dispatches it. */
    private static final Executor INLINE = Runnable::run;

    @Param({"off", "plumbing", "meters", "tracing", "boot"})
    public String handlers;

    private ObservationRegistry registry;
    private Tracing tracing;
    private AutoCloseable observing;
    private Observation request;
    private Callable<Integer> body;

    @Setup(Level.Trial)
    public void start() {
        registry = ObservationRegistry.create();
        switch (handlers) {
            case "plumbing" -> registry.observationConfig().observationHandler(new NothingHandler());
            case "meters" -> registry.observationConfig().observationHandler(
                    new DefaultMeterObservationHandler(new SimpleMeterRegistry()));
            case "tracing" -> registry.observationConfig().observationHandler(tracingHandlers(tracer()));
            case "off", "boot" -> {
                Tracer tracer = tracer();
                MeterRegistry meters = new SimpleMeterRegistry();
                registry.observationConfig()
                        .observationHandler(new TracingAwareMeterObservationHandler<>(
                                new DefaultMeterObservationHandler(meters), tracer))
                        .observationHandler(tracingHandlers(tracer));
            }
            default -> throw new IllegalArgumentException("unknown handlers " + handlers);
        }
        boolean observed = !handlers.equals("off");
        if (observed) {
            observing = TaskObservations.installScoped(registry);
        }
        body = () -> {
            Observation current = registry.getCurrentObservation();
            boolean right = observed
                    ? current != null && current != request
                            && TaskObservations.NAME.equals(current.getContext().getName())
                            && current.getContext().getParentObservation() == request
                    : current == request;
            if (!right) {
                throw new IllegalStateException("row " + handlers + ": " + current + " is current in a task of " + request);
            }
            return ONE;
        };
    }

    private Tracer tracer() {
        tracing = Tracing.newBuilder()
                .localServiceName("bench")
                .sampler(Sampler.create(0.1f))
                // Spring Boot's span handler when no exporter is configured: takes every span, sends
                // it nowhere. (Brave without a handler would log each span.)
                .addSpanHandler(new SpanHandler() {
                })
                .currentTraceContext(ThreadLocalCurrentTraceContext.newBuilder()
                        .addScopeDecorator(MDCScopeDecorator.newBuilder()
                                .clear()
                                .add(SingleCorrelationField.create(BaggageFields.TRACE_ID))
                                .add(SingleCorrelationField.create(BaggageFields.SPAN_ID))
                                .build())
                        .build())
                .build();
        return new BraveTracer(tracing.tracer(), new BraveCurrentTraceContext(tracing.currentTraceContext()),
                new BraveBaggageManager());
    }

    private static ObservationHandler<Observation.Context> tracingHandlers(Tracer tracer) {
        return new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, Propagator.NOOP),
                new PropagatingReceiverTracingObservationHandler<>(tracer, Propagator.NOOP),
                new DefaultTracingObservationHandler(tracer));
    }

    @TearDown(Level.Trial)
    public void stop() throws Exception {
        if (observing != null) {
            observing.close();
        }
        if (tracing != null) {
            tracing.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(OPS)
    public int observedTask() {
        request = Observation.start("http.server.requests", registry);
        int sum = 0;
        try (Observation.Scope scope = request.openScope()) {
            for (int i = 0; i < OPS; i++) {
                Outcome<Integer> outcome = Task.start(INLINE, body).outcomeOrNull();
                if (!(outcome instanceof Outcome.Success<Integer> s)) {
                    throw new IllegalStateException("a task ran inline did not succeed: " + outcome);
                }
                sum += s.value();
            }
        } finally {
            request.stop();
        }
        return sum;
    }

    /** A handler that takes every context and does nothing with it. */
    private static final class NothingHandler implements ObservationHandler<Observation.Context> {
        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }
}
