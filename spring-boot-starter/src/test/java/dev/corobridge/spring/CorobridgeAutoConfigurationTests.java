package dev.corobridge.spring;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.corobridge.bridge.Task;
import dev.corobridge.pump.MessagePump;
import dev.corobridge.pump.PumpConfig;
import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.Transport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import kotlinx.coroutines.CoroutineDispatcher;
import kotlinx.coroutines.Dispatchers;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class CorobridgeAutoConfigurationTests {

    /** Small pools and the fallback transport: the same on every machine, cheap on two cores. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration.class,
                    CorobridgeWebFluxAutoConfiguration.class, CorobridgeMetricsAutoConfiguration.class,
                    CorobridgeHealthAutoConfiguration.class))
            .withPropertyValues("corobridge.ring.count=1", "corobridge.ring.size=16", "corobridge.ring.force-fallback=true");

    @Test
    void providesTheContextsAndTheirLifecycles() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(MessagePump.class).hasSingleBean(RingPool.class)
                    .hasBean(CorobridgeAutoConfiguration.CPU_DISPATCHER)
                    .hasBean("corobridgePumpLifecycle").hasBean("corobridgeRingPoolLifecycle")
                    .hasSingleBean(PumpMeterBinder.class).hasSingleBean(RingMeterBinder.class)
                    .hasSingleBean(PumpHealthIndicator.class).hasSingleBean(RingPoolHealthIndicator.class)
                    .hasSingleBean(TaskReactiveAdapters.class);
            MessagePump pump = context.getBean(MessagePump.class);
            assertThat(pump.getName()).isEqualTo("corobridge-pump");
            assertThat(Task.start(pump, () -> Thread.currentThread().getName()).join(Duration.ofSeconds(30)))
                    .startsWith("corobridge-pump");
            assertThat(context.getBean(CorobridgeAutoConfiguration.CPU_DISPATCHER)).isSameAs(Dispatchers.getDefault());
        });
    }

    @Test
    void bindsProperties() {
        runner.withPropertyValues("corobridge.pump.name=board-pump", "corobridge.pump.stall-threshold=250ms",
                        "corobridge.ring.name=journal", "corobridge.ring.count=2", "corobridge.cpu.parallelism=2",
                        "spring.lifecycle.timeout-per-shutdown-phase=2s", "corobridge.pump.shutdown-grace=5s",
                        "corobridge.ring.shutdown-grace=1s")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    CorobridgeProperties p = context.getBean(CorobridgeProperties.class);
                    assertThat(p.pump().stallThreshold()).isEqualTo(Duration.ofMillis(250));
                    assertThat(context.getBean(MessagePump.class).getName()).isEqualTo("board-pump");
                    RingPool pool = context.getBean(RingPool.class);
                    assertThat(pool.getName()).isEqualTo("journal");
                    assertThat(pool.getRings()).hasSize(2);
                    assertThat(pool.getMetrics().transport()).isEqualTo(Transport.FALLBACK);
                    // Forced by the builder the property fills, not by the system property it named.
                    assertThat(pool.getMetrics().fallbackReason()).contains("forced")
                            .doesNotContain("corobridge.ring.fallback").contains("forceFallback");
                    CoroutineDispatcher cpu = context.getBean(CorobridgeAutoConfiguration.CPU_DISPATCHER, CoroutineDispatcher.class);
                    assertThat(cpu).isNotSameAs(Dispatchers.getDefault());
                    // The pump's grace is capped at 90% of the phase timeout; the pool's is below it.
                    assertThat(context.getBean("corobridgePumpLifecycle", CorobridgeLifecycle.class).getGrace())
                            .isEqualTo(Duration.ofMillis(1800));
                    assertThat(context.getBean("corobridgeRingPoolLifecycle", CorobridgeLifecycle.class).getGrace())
                            .isEqualTo(Duration.ofSeconds(1));
                });
    }

    @Test
    void rejectsBadValuesNamingTheProperty() {
        runner.withPropertyValues("corobridge.ring.size=100").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure())).hasMessageContaining("corobridge.ring.size");
        });
        runner.withPropertyValues("corobridge.pump.stall-threshold=5ms").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure())).hasMessageContaining("corobridge.pump.stall-threshold");
        });
        runner.withPropertyValues("corobridge.cpu.parallelism=-1").run(context -> assertThat(context).hasFailed());
        // The pump takes at most a day for both: a longer value fails at binding, naming the
        // property (it failed later, in the pump's builder, under the builder's field names).
        for (String property : new String[] {"corobridge.pump.stall-threshold", "corobridge.pump.shutdown-grace"}) {
            runner.withPropertyValues(property + "=100000d").run(context -> {
                assertThat(context).hasFailed();
                assertThat(rootCause(context.getStartupFailure())).hasMessageContaining(property)
                        .isInstanceOf(IllegalArgumentException.class);
            });
            runner.withPropertyValues(property + "=1d").run(context -> assertThat(context).hasNotFailed());
        }
        // corobridge.observation.enabled is a property like the others: checked, and in the IDE metadata.
        runner.withPropertyValues("corobridge.observation.enabled=maybe").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure()).getMessage() + messages(context.getStartupFailure()))
                    .contains("corobridge.observation.enabled");
        });
        runner.withPropertyValues("corobridge.observation.enabled=off").run(context ->
                assertThat(context.getBean(CorobridgeProperties.class).observation().enabled()).isFalse());
        runner.run(context -> assertThat(context.getBean(CorobridgeProperties.class).observation().enabled()).isTrue());
    }

    /** Every property the README's table lists is in the generated IDE metadata. */
    @Test
    void everyDocumentedPropertyIsInTheMetadata() throws Exception {
        String metadata;
        try (var in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the generated metadata").isNotNull();
            metadata = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
        String readme = java.nio.file.Files.readString(java.nio.file.Path.of("README.md"));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^\\| `(corobridge\\.[a-z.-]+)` \\|").matcher(readme);
        java.util.List<String> documented = new java.util.ArrayList<>();
        while (m.find()) {
            documented.add(m.group(1));
        }
        assertThat(documented).contains("corobridge.pump.name", "corobridge.observation.enabled");
        // The health switch the bean table names is a property of ours too.
        documented.add("management.health.corobridge.enabled");
        for (String property : documented) {
            assertThat(metadata).as(property).contains("\"name\": \"" + property + "\"");
        }
        // Descriptions are plain text in the IDE: no Javadoc markup.
        assertThat(metadata).doesNotContain("{@code").doesNotContain("{@link");
    }

    private static String messages(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable e = t; e != null; e = e.getCause()) {
            b.append(" | ").append(e.getMessage());
        }
        return b.toString();
    }

    @Test
    void userBeansWin() {
        runner.withUserConfiguration(UserBeans.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(MessagePump.class);
            assertThat(context.getBean(MessagePump.class).getName()).isEqualTo("user-pump");
            assertThat(context.getBean(CorobridgeAutoConfiguration.CPU_DISPATCHER)).isSameAs(Dispatchers.getIO());
            // The starter's lifecycle, meters and health work on the user's pump.
            assertThat(context.getBean(PumpHealthIndicator.class).health().getDetails()).containsEntry("pump", "user-pump");
        });
    }

    /**
     * An application with several pumps and pools of its own starts: the starter's beans that act
     * on one pump or pool (the lifecycles, meters, health, the off-pump filter) back off unless one
     * is primary, and the application runs its own. It failed with NoUniqueBeanDefinitionException.
     */
    @Test
    void severalUserPumpsAndPoolsStart() {
        reactiveRunner().withUserConfiguration(TwoPumpsTwoPools.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBeansOfType(MessagePump.class)).hasSize(2);
            assertThat(context.getBeansOfType(RingPool.class)).hasSize(2);
            assertThat(context).doesNotHaveBean("corobridgePumpLifecycle").doesNotHaveBean("corobridgeRingPoolLifecycle")
                    .doesNotHaveBean(PumpMeterBinder.class).doesNotHaveBean(PumpHealthIndicator.class)
                    .doesNotHaveBean(OffPumpHandlerFilter.class);
        });
        reactiveRunner().withUserConfiguration(TwoPumpsTwoPools.class, PrimaryPump.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasBean("corobridgePumpLifecycle").hasSingleBean(OffPumpHandlerFilter.class)
                    .hasSingleBean(PumpHealthIndicator.class).doesNotHaveBean("corobridgeRingPoolLifecycle");
            assertThat(context.getBean("corobridgePumpLifecycle").toString()).contains("main-pump");
        });
    }

    private org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner reactiveRunner() {
        return new org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration.class,
                        CorobridgeWebFluxAutoConfiguration.class, CorobridgeMetricsAutoConfiguration.class,
                        CorobridgeHealthAutoConfiguration.class))
                .withPropertyValues("corobridge.ring.count=1", "corobridge.ring.size=16", "corobridge.ring.force-fallback=true");
    }

    @Configuration(proxyBeanMethods = false)
    static class TwoPumpsTwoPools {
        @Bean(destroyMethod = "close")
        MessagePump uiPump() {
            return MessagePump.start(PumpConfig.builder("ui-pump").build());
        }

        @Bean(destroyMethod = "close")
        MessagePump gamePump() {
            return MessagePump.start(PumpConfig.builder("game-pump").build());
        }

        @Bean(destroyMethod = "close")
        RingPool filesPool() {
            return RingPool.start(dev.corobridge.ring.RingPoolConfig.builder().name("files").rings(1).ringSize(16)
                    .forceFallback(true).build());
        }

        @Bean(destroyMethod = "close")
        RingPool socketsPool() {
            return RingPool.start(dev.corobridge.ring.RingPoolConfig.builder().name("sockets").rings(1).ringSize(16)
                    .forceFallback(true).build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrimaryPump {
        @Bean(destroyMethod = "close")
        @org.springframework.context.annotation.Primary
        MessagePump mainPump() {
            return MessagePump.start(PumpConfig.builder("main-pump").build());
        }
    }

    @Test
    void optionalPartsNeedTheirClasses() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.core", "org.springframework.boot.health",
                        "org.springframework.web.reactive"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).hasSingleBean(MessagePump.class)
                            .doesNotHaveBean(PumpMeterBinder.class).doesNotHaveBean(RingMeterBinder.class)
                            .doesNotHaveBean(PumpHealthIndicator.class).doesNotHaveBean(RingPoolHealthIndicator.class)
                            .doesNotHaveBean(TaskReactiveAdapters.class);
                });
        runner.withPropertyValues("management.health.corobridge.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(PumpHealthIndicator.class).hasSingleBean(PumpMeterBinder.class));
    }

    @Test
    void meterBindersRegisterMeters() {
        runner.run(context -> {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            context.getBean(PumpMeterBinder.class).bindTo(registry);
            context.getBean(RingMeterBinder.class).bindTo(registry);
            MessagePump pump = context.getBean(MessagePump.class);
            Task.start(pump, () -> 1).join(Duration.ofSeconds(30));
            assertThat(registry.get("corobridge.pump.dispatches").tag("pump", "corobridge-pump").functionCounter().count())
                    .isGreaterThanOrEqualTo(1);
            assertThat(registry.get("corobridge.pump.queue.depth").gauge().value()).isGreaterThanOrEqualTo(0);
            assertThat(registry.get("corobridge.pump.running").gauge().value()).isEqualTo(1);
            assertThat(registry.get("corobridge.pump.queue.latency.p99").timeGauge()).isNotNull();
            assertThat(registry.get("corobridge.ring.transport").tag("transport", "FALLBACK").gauge().value()).isEqualTo(1);
            assertThat(registry.get("corobridge.ring.operations").tag("kind", "fdatasync").functionCounter().count()).isZero();
            assertThat(registry.get("corobridge.ring.in.flight").gauge().value()).isZero();
            assertThat(registry.get("corobridge.ring.rings").gauge().value()).isEqualTo(1);
        });
    }

    @Test
    void healthUpThenDownWhenThePumpIsBusyOrShutDown() throws Exception {
        runner.withPropertyValues("corobridge.health.pump-responsive-threshold=100ms").run(context -> {
            PumpHealthIndicator pumpHealth = context.getBean(PumpHealthIndicator.class);
            Health up = pumpHealth.health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsKey("roundTripMicros").containsEntry("state", "RUNNING");

            MessagePump pump = context.getBean(MessagePump.class);
            CountDownLatch release = new CountDownLatch(1);
            pump.execute(() -> {
                try {
                    release.await(30, TimeUnit.SECONDS); // holds the pump: no round trip gets through
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                Health busy = pumpHealth.health();
                assertThat(busy.getStatus()).isEqualTo(Status.DOWN);
                assertThat(busy.getDetails().get("error")).asString().contains("within PT0.1S");
            } finally {
                release.countDown();
            }
            assertThat(pumpHealth.health().getStatus()).isEqualTo(Status.UP);

            Health ring = context.getBean(RingPoolHealthIndicator.class).health();
            assertThat(ring.getStatus()).isEqualTo(Status.UP);
            assertThat(ring.getDetails()).containsEntry("transport", "FALLBACK");
            assertThat(ring.getDetails().get("fallbackReason")).asString().contains("forced");

            pump.shutdown(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
            assertThat(pumpHealth.health().getStatus()).isEqualTo(Status.DOWN);
            context.getBean(RingPool.class).shutdown(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
            assertThat(context.getBean(RingPoolHealthIndicator.class).health().getStatus()).isEqualTo(Status.DOWN);
        });
    }

    @Test
    void ringPoolOnWhateverTransportThisMachineHas() {
        runner.withPropertyValues("corobridge.ring.force-fallback=false").run(context -> {
            RingPool pool = context.getBean(RingPool.class);
            Health health = context.getBean(RingPoolHealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("transport", pool.getMetrics().transport().name());
            if (pool.getMetrics().transport() == Transport.FALLBACK) {
                assertThat(health.getDetails()).containsKey("fallbackReason");
            }
        });
    }

    @Test
    void sharingReactorNettyLoopsFallsBackToOwnLoopsWhenItCannot() {
        // Forced fallback: no io_uring loops to share, so the pool starts its own (and logs why).
        runner.withPropertyValues("corobridge.ring.share-reactor-netty-loops=true").run(context -> {
            assertThat(context).hasNotFailed();
            RingPool pool = context.getBean(RingPool.class);
            assertThat(pool.getMetrics().transport()).isEqualTo(Transport.FALLBACK);
            assertThat(pool.getRings()).hasSize(1);
        });
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    @Configuration(proxyBeanMethods = false)
    static class UserBeans {

        @Bean
        MessagePump userPump() {
            return MessagePump.start(PumpConfig.builder("user-pump").build());
        }

        @Bean(CorobridgeAutoConfiguration.CPU_DISPATCHER)
        CoroutineDispatcher userCpu() {
            return Dispatchers.getIO();
        }
    }
}
