package dev.corobridge.spring;

import java.time.Duration;
import java.util.Objects;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Settings of the corobridge starter, under {@code corobridge.*}. Checked when bound: a bad value
 * fails the application context at start with the property named in the message.
 *
 * @param pump   the UI-affinity message pump
 * @param ring   the io_uring ring pool
 * @param cpu    the CPU dispatcher
 * @param health the health contributors
 * @param webflux the WebFlux integration
 * @param observation the observation of tasks
 */
@ConfigurationProperties("corobridge")
public record CorobridgeProperties(@DefaultValue Pump pump, @DefaultValue Ring ring, @DefaultValue Cpu cpu,
                                   @DefaultValue Health health, @DefaultValue Webflux webflux,
                                   @DefaultValue Observation observation) {

    public CorobridgeProperties {
        Objects.requireNonNull(pump, "pump");
        Objects.requireNonNull(ring, "ring");
        Objects.requireNonNull(cpu, "cpu");
        Objects.requireNonNull(health, "health");
        Objects.requireNonNull(webflux, "webflux");
        Objects.requireNonNull(observation, "observation");
    }

    /**
     * The message pump.
     *
     * @param name           name of the pump and of its thread
     * @param stallThreshold a task running longer than this is reported by the stall watchdog (0
     *                       turns the watchdog off; otherwise 10 ms to 1 day)
     * @param shutdownGrace  how long the pump's two-phase shutdown lets coroutines finish before it
     *                       abandons them (at most 1 day); capped by
     *                       spring.lifecycle.timeout-per-shutdown-phase
     */
    public record Pump(@DefaultValue("corobridge-pump") String name,
                       @DefaultValue("1s") Duration stallThreshold,
                       @DefaultValue("10s") Duration shutdownGrace) {

        public Pump {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("corobridge.pump.name must not be blank");
            }
            // The pump takes at most a day for both (PumpConfig): checked here to name the property.
            if (stallThreshold.isNegative() || (!stallThreshold.isZero() && stallThreshold.toMillis() < 10)
                    || stallThreshold.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException(
                        "corobridge.pump.stall-threshold must be 0 (off) or 10ms..1d, was " + stallThreshold);
            }
            if (shutdownGrace.isNegative() || shutdownGrace.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException("corobridge.pump.shutdown-grace must be in 0..1d, was " + shutdownGrace);
            }
        }
    }

    /**
     * The ring pool.
     *
     * @param name                    name of the pool (its threads are called name-N)
     * @param count                   number of rings, each with its own event-loop thread (1..256;
     *                                0 means one per available processor)
     * @param size                    submission queue entries per ring: a power of two in 16..32768
     * @param forceFallback           run on the fallback transport (NIO loops and a blocking file
     *                                executor) even where io_uring is available; the system property
     *                                corobridge.ring.fallback=true forces it too
     * @param shareReactorNettyLoops  build the pool over Reactor Netty's io_uring event loops instead
     *                                of starting its own, when such a group can be obtained; otherwise
     *                                the pool starts its own loops and logs why
     * @param shutdownGrace           how long the pool's shutdown lets in-flight operations drain;
     *                                capped by spring.lifecycle.timeout-per-shutdown-phase
     */
    public record Ring(@DefaultValue("corobridge-ring") String name,
                       @DefaultValue("0") int count,
                       @DefaultValue("4096") int size,
                       @DefaultValue("false") boolean forceFallback,
                       @DefaultValue("false") boolean shareReactorNettyLoops,
                       @DefaultValue("10s") Duration shutdownGrace) {

        public Ring {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("corobridge.ring.name must not be blank");
            }
            if (count < 0 || count > 256) {
                throw new IllegalArgumentException("corobridge.ring.count must be in 0..256 (0: one per processor), was " + count);
            }
            if (size < 16 || size > 32_768 || Integer.bitCount(size) != 1) {
                throw new IllegalArgumentException("corobridge.ring.size must be a power of two in 16..32768, was " + size);
            }
            if (shutdownGrace.isNegative()) {
                throw new IllegalArgumentException("corobridge.ring.shutdown-grace must not be negative, was " + shutdownGrace);
            }
        }

        /** {@link #count()} with 0 resolved to the number of available processors. */
        public int effectiveCount() {
            return count == 0 ? Math.min(256, Runtime.getRuntime().availableProcessors()) : count;
        }
    }

    /**
     * The CPU dispatcher bean {@code corobridgeCpuDispatcher}.
     *
     * @param parallelism at most this many of its coroutines run at once, as a view of
     *                    Dispatchers.Default (0: as many as Dispatchers.Default, one per processor)
     */
    public record Cpu(@DefaultValue("0") int parallelism) {

        public Cpu {
            if (parallelism < 0) {
                throw new IllegalArgumentException("corobridge.cpu.parallelism must not be negative, was " + parallelism);
            }
        }
    }

    /**
     * The health contributors.
     *
     * @param pumpResponsiveThreshold the pump is DOWN when a round trip through it (post a no-op
     *                                task and see it run) takes longer than this
     */
    public record Health(@DefaultValue("1s") Duration pumpResponsiveThreshold) {

        public Health {
            if (pumpResponsiveThreshold.isNegative() || pumpResponsiveThreshold.isZero()) {
                throw new IllegalArgumentException(
                        "corobridge.health.pump-responsive-threshold must be positive, was " + pumpResponsiveThreshold);
            }
        }
    }

    /** Where Kotlin {@code suspend} WebFlux handler methods run. */
    public enum SuspendDispatcher {
        /**
         * The default: they start on the Netty thread of the request (no hop), and a resumption on
         * the pump thread (the end of {@code withContext(pump.dispatcher)}) continues on the
         * request's Netty event loop (with {@code answer-on-event-loop=false}, or without Reactor
         * Netty, on the CPU dispatcher), so handler code never keeps running on the UI-affinity thread.
         */
        OFF_PUMP,
        /**
         * Spring's own: {@code Dispatchers.Unconfined}, so on the Netty thread of the request, and
         * after {@code withContext(pump.dispatcher)} on the pump thread.
         */
        NONE,
        /** On the message pump. */
        PUMP,
        /** On the CPU dispatcher bean {@code corobridgeCpuDispatcher}. */
        CPU
    }

    /**
     * The WebFlux integration ({@code Task<T>} as a return type is always on with WebFlux).
     *
     * @param suspendDispatcher where every Kotlin suspend handler method runs: off-pump (the
     *                          default), none (Spring's Unconfined), pump or cpu; through a
     *                          SuspendHandlerDispatcherFilter bean
     * @param answerOnEventLoop whether a handler's answer is serialised and written on the Netty
     *                          event loop of the request's connection (Reactor Netty only): a Task
     *                          that completes on another thread hands its value to that loop, and
     *                          off-pump leaves the pump for that loop rather than for the CPU
     *                          dispatcher (default true)
     */
    public record Webflux(@DefaultValue("off-pump") SuspendDispatcher suspendDispatcher,
                          @DefaultValue("true") boolean answerOnEventLoop) {
    }

    /**
     * The observation of tasks (with Micrometer Tracing on the class path and an
     * {@code ObservationRegistry} bean).
     *
     * @param enabled whether each task that runs work is a Micrometer Observation, a span of the
     *                request with its hops as events (default true)
     */
    public record Observation(@DefaultValue("true") boolean enabled) {
    }
}
