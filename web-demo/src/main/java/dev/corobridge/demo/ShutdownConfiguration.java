package dev.corobridge.demo;

import java.time.Duration;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import dev.corobridge.demo.web.transport.ConnectionTracker;
import dev.corobridge.demo.web.transport.ListeningSocket;
import dev.corobridge.demo.web.transport.ServiceState;
import dev.corobridge.demo.web.transport.ShutdownDrain;

/**
 * The drain at the start of the service's shutdown (see {@link ShutdownDrain} and
 * {@code web-demo/API.md}, "Shutdown"): the {@link ConnectionTracker} that the handler on every
 * server connection feeds ({@link TransportConfiguration}), the {@link ListeningSocket}, and the
 * lifecycle that keeps the server answering until its connections are quiet and then stops it
 * accepting, before Boot's graceful shutdown closes the listening socket; and, with
 * {@code demo.shutdown.with-parent}, the {@link ParentProcessWatch} that starts that shutdown when
 * the process that started the service exits.
 */
@Configuration(proxyBeanMethods = false)
public class ShutdownConfiguration {

    /** Spring's default for {@code spring.lifecycle.timeout-per-shutdown-phase}. */
    private static final Duration DEFAULT_PHASE_TIMEOUT = Duration.ofSeconds(30);
    /** How often the parent's liveness is checked: a stopped launcher frees the port within about this. */
    private static final Duration PARENT_CHECK_PERIOD = Duration.ofMillis(250);

    @Bean
    ConnectionTracker connectionTracker() {
        return new ConnectionTracker();
    }

    /** The server's listening socket, which the drain stops from accepting before it closes. */
    @Bean
    ListeningSocket listeningSocket() {
        return new ListeningSocket();
    }

    @Bean
    ShutdownDrain shutdownDrain(ServiceState state, ConnectionTracker tracker, ListeningSocket listener,
                                ShutdownProperties properties, Environment environment) {
        Duration phaseTimeout = Binder.get(environment)
                .bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class).orElse(DEFAULT_PHASE_TIMEOUT);
        return new ShutdownDrain(state, tracker, listener, properties.quietPeriod(),
                properties.effectiveDrainTimeout(phaseTimeout));
    }

    /**
     * The watch of the launcher, started when {@code demo.shutdown.with-parent} is set (else one that
     * watches nothing); closed with the context.
     */
    @Bean
    ParentProcessWatch parentProcessWatch(ShutdownProperties properties) {
        return properties.withParent() ? ParentProcessWatch.ofLauncher(PARENT_CHECK_PERIOD).start() : ParentProcessWatch.none();
    }
}
