package dev.corobridge.demo.web.transport;

import java.util.Objects;
import java.util.Properties;

/**
 * How many event loops the service's Reactor Netty server runs: one per core the JVM may use,
 * unless {@value #PROPERTY} is given (Reactor Netty's own setting, which then wins).
 *
 * <p>Why not Reactor Netty's default: it runs as many loops as cores but at least four. On a machine
 * with fewer than four cores the loops beyond one per core do no more work; they split the same
 * connections into smaller batches, so every loop wakes up more often for fewer completions and the
 * cores switch between them. On two cores, two loops answered a ping with about a fifth less CPU
 * than four, with fewer context switches per request (the figures in {@code benchmarks/HISTORY.md},
 * "Earlier on 2026-12-04, one event loop per core"). With four or more cores the value is the
 * default's.
 *
 * <p>Reactor Netty reads the setting once, when its loop resources are first loaded, so
 * {@link #applyDefault()} must run before the server is built: the application's {@code main} calls
 * it first. Not thread-safe against concurrent changes of the system properties (none happen at
 * start-up).
 */
public final class ServerEventLoops {

    /** Reactor Netty's system property for the number of its server event loops. */
    public static final String PROPERTY = "reactor.netty.ioWorkerCount";

    private ServerEventLoops() {
    }

    /**
     * Sets {@value #PROPERTY} to the number of cores the JVM may use, unless it is set.
     *
     * @return the number of event loops the server will run, as the property now says it
     */
    public static String applyDefault() {
        return applyDefault(System.getProperties(), Runtime.getRuntime().availableProcessors());
    }

    /**
     * Sets {@value #PROPERTY} in {@code properties} to {@code cores}, unless it is set there.
     *
     * @param cores the cores the JVM may use; at least 1
     * @return the property's value afterwards
     */
    static String applyDefault(Properties properties, int cores) {
        Objects.requireNonNull(properties, "properties");
        if (cores < 1) {
            throw new IllegalArgumentException("cores must be at least 1, was " + cores);
        }
        String given = properties.getProperty(PROPERTY);
        if (given != null && !given.isBlank()) {
            return given;
        }
        String count = Integer.toString(cores);
        properties.setProperty(PROPERTY, count);
        return count;
    }
}
