package dev.corobridge.demo;

import java.time.Duration;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import dev.corobridge.demo.web.transport.ClientFaultSummary;
import dev.corobridge.demo.web.transport.ConnectionTracker;
import dev.corobridge.demo.web.transport.HttpTransport;
import dev.corobridge.demo.web.transport.ServiceState;
import dev.corobridge.demo.web.transport.UnsentOutput;

/**
 * The service's HTTP/1.1 transport below Spring (see {@code dev.corobridge.demo.web.transport} and
 * {@code web-demo/API.md}, "Errors: RFC 7807 problem JSON"): the handler on every connection, which answers undecodable
 * requests with problem JSON, enforces the deadlines for slow clients ({@code demo.http.*}) and
 * feeds the shutdown drain's {@link ConnectionTracker} ({@link ShutdownConfiguration}), and the
 * summary that counts client faults in one WARN line a minute at most.
 */
@Configuration(proxyBeanMethods = false)
public class TransportConfiguration {

    @Bean
    ClientFaultSummary clientFaultSummary() {
        return new ClientFaultSummary();
    }

    /** The budget of answers written to clients that have not read them ({@code demo.http.max-unsent-output}). */
    @Bean(destroyMethod = "close")
    UnsentOutput unsentOutput(ClientFaultSummary faults, DemoProperties properties) {
        return new UnsentOutput(properties.http().maxUnsentOutput().toBytes(), Duration.ofMillis(250), faults);
    }

    @Bean
    HttpTransport httpTransport(ConnectionTracker tracker, ServiceState state, ClientFaultSummary faults,
                                UnsentOutput unsent, DemoProperties properties) {
        return new HttpTransport(tracker, state, faults, unsent, properties.http().headerTimeout(),
                properties.http().bodyTimeout());
    }
}
