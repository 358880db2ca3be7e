package dev.corobridge.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.corobridge.ring.RingPool;
import dev.corobridge.ring.Transport;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ReactorResourceFactory;

/**
 * {@code corobridge.ring.share-reactor-netty-loops=true} shares the loops the application's Reactor
 * Netty server uses: those of its {@link ReactorResourceFactory} (its own, or Reactor Netty's global
 * ones), and none when there is no such factory (no Reactor Netty web server). It used to take the
 * global loops whatever the server used, creating them when they did not exist: in an application
 * without a server it made four event-loop threads nobody stopped, and under a server with loops
 * of its own (as in {@code @SpringBootTest}) it shared loops that server never used.
 */
class ShareReactorNettyLoopsTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(CorobridgeAutoConfiguration.class))
            .withPropertyValues("corobridge.ring.share-reactor-netty-loops=true", "corobridge.ring.count=1");

    private static String threadOfFirstRing(RingPool pool) throws Exception {
        return CompletableFuture.supplyAsync(() -> Thread.currentThread().getName(), pool.getRings().get(0))
                .get(30, TimeUnit.SECONDS);
    }

    private static Set<String> reactorHttpThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith("reactor-http-")).collect(Collectors.toSet());
    }

    @Test
    void withoutAServersResourcesThePoolStartsItsOwnLoopsAndCreatesNone() {
        Set<String> before = reactorHttpThreads();
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            RingPool pool = context.getBean(RingPool.class);
            assertThat(pool.getRings()).as("the configured count: its own loops").hasSize(1);
            assertThat(threadOfFirstRing(pool)).startsWith("corobridge-ring");
        });
        assertThat(reactorHttpThreads()).as("no Reactor Netty loops were created").isSubsetOf(before);
    }

    @Test
    void theServersOwnLoopsAreTheOnesShared() {
        runner.withUserConfiguration(OwnServerResources.class).run(context -> {
            assertThat(context).hasNotFailed();
            RingPool pool = context.getBean(RingPool.class);
            String thread = threadOfFirstRing(pool);
            if (pool.getMetrics().transport() == Transport.IO_URING && !thread.startsWith("corobridge-ring")) {
                assertThat(thread).as("the factory's own loops, not the global ones").startsWith("own-server-");
            } else { // Reactor Netty's loops are not io_uring loops here: the pool has its own
                assertThat(thread).startsWith("corobridge-ring");
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnServerResources {
        @Bean
        ReactorResourceFactory reactorResourceFactory() {
            ReactorResourceFactory f = new ReactorResourceFactory();
            f.setUseGlobalResources(false);
            f.setLoopResourcesSupplier(() -> reactor.netty.resources.LoopResources.create("own-server"));
            f.setShutdownQuietPeriod(java.time.Duration.ZERO);
            return f;
        }
    }
}
