package dev.corobridge.spring;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import dev.corobridge.pump.MessagePump;
import dev.corobridge.ring.RingPool;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.server.context.WebServerGracefulShutdownLifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CorobridgeLifecycleTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration.class))
            .withPropertyValues("corobridge.ring.count=1", "corobridge.ring.size=16", "corobridge.ring.force-fallback=true");

    @Test
    void closingTheContextShutsThePumpAndThePoolDown() {
        AtomicReference<MessagePump> pump = new AtomicReference<>();
        AtomicReference<RingPool> pool = new AtomicReference<>();
        runner.run(context -> {
            pump.set(context.getBean(MessagePump.class));
            pool.set(context.getBean(RingPool.class));
            assertThat(context.getBean("corobridgePumpLifecycle", CorobridgeLifecycle.class).isRunning()).isTrue();
            assertThat(context.getBean("corobridgeRingPoolLifecycle", CorobridgeLifecycle.class).isRunning()).isTrue();
            assertThat(pump.get().isTerminated()).isFalse();
        });
        // close() returned: the lifecycles' stop callbacks have run, so both have terminated.
        assertThat(pump.get().isTerminated()).isTrue();
        assertThat(pump.get().termination().join().isClean()).isTrue();
        assertThat(pool.get().isTerminated()).isTrue();
    }

    @Test
    void startingAgainAfterAStopFailsClearlyInsteadOfReportingADeadPumpAsRunning() {
        runner.run(context -> {
            MessagePump pump = context.getBean(MessagePump.class);
            CorobridgeLifecycle lifecycle = context.getBean("corobridgePumpLifecycle", CorobridgeLifecycle.class);
            context.stop(); // e.g. a checkpoint (CRaC) or an explicit stop: the pump and the pool shut down
            assertThat(pump.isTerminated()).isTrue();
            assertThat(lifecycle.isRunning()).isFalse();
            assertThatThrownBy(context::start)
                    .rootCause()
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot be started again"); // the ring pool's, whose phase starts first
            assertThat(lifecycle.isRunning()).as("a shut-down pump is not reported running").isFalse();
        });
    }

    /**
     * Spring's test context cache pauses a cached context while another one is in use and restarts
     * it when a test needs it again: the pump and the pool are not stopped by a pause (they could
     * not run again), so the context restarts with them running. They were shut down before, and the
     * restart failed with "cannot be started again".
     */
    @Test
    void aPausedContextRestartsWithItsPumpAndPoolRunning() {
        runner.run(context -> {
            MessagePump pump = context.getBean(MessagePump.class);
            RingPool pool = context.getBean(RingPool.class);
            org.springframework.context.ConfigurableApplicationContext source =
                    (org.springframework.context.ConfigurableApplicationContext) context.getSourceApplicationContext();
            source.pause();
            assertThat(pump.isTerminated()).isFalse();
            assertThat(pool.isTerminated()).isFalse();
            source.restart();
            assertThat(context.getBean("corobridgePumpLifecycle", CorobridgeLifecycle.class).isRunning()).isTrue();
            assertThat(context.getBean("corobridgeRingPoolLifecycle", CorobridgeLifecycle.class).isRunning()).isTrue();
            assertThat(dev.corobridge.bridge.Task.start(pump, () -> "ran").join(Duration.ofSeconds(30))).isEqualTo("ran");
        });
    }

    @Test
    void phasesAreAroundTheWebServersLifecycles() {
        int gracefulShutdown = WebServerGracefulShutdownLifecycle.SMART_LIFECYCLE_PHASE;
        int webServerStartStop = gracefulShutdown - 1024; // Boot 4.0.7: package-private, DEFAULT_PHASE - 2048
        assertThat(CorobridgeLifecycle.PUMP_PHASE).isLessThan(webServerStartStop);
        assertThat(CorobridgeLifecycle.RING_PHASE).isLessThan(CorobridgeLifecycle.PUMP_PHASE);
    }

    @Test
    void graceIsCappedByThePhaseTimeout() {
        assertThat(CorobridgeLifecycle.effectiveGrace(Duration.ofSeconds(10), Duration.ofSeconds(30)))
                .isEqualTo(Duration.ofSeconds(10));
        assertThat(CorobridgeLifecycle.effectiveGrace(Duration.ofSeconds(10), Duration.ofSeconds(5)))
                .isEqualTo(Duration.ofMillis(4500));
    }
}
