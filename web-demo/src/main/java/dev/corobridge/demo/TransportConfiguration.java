package dev.corobridge.demo;

import java.lang.management.ManagementFactory;
import java.time.Duration;

import com.sun.management.UnixOperatingSystemMXBean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

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

    private static final Log LOG = LogFactory.getLog(TransportConfiguration.class);

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
        return new HttpTransport(tracker, state, faults, unsent, maxConnections(properties.http().maxConnections()),
                properties.http().headerTimeout(), properties.http().bodyTimeout());
    }

    /** {@code configured}, or for 0 90% of the process's open-file limit (0, no limit, if the JVM cannot tell). */
    static int maxConnections(int configured) {
        if (configured > 0) {
            return configured;
        }
        long files = ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean unix
                ? unix.getMaxFileDescriptorCount() : -1;
        int limit = files <= 0 ? 0 : (int) Math.max(1, Math.min(10_000_000, files * 9 / 10));
        LOG.info(limit == 0 ? "Connections: no limit (the open-file limit is unknown; set demo.http.max-connections)"
                : "Connections: at most " + limit + " at once, 90% of the open-file limit " + files
                        + " (demo.http.max-connections)");
        return limit;
    }
}
