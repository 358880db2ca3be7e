package dev.corobridge.demo;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a start refused because a port is out of range (Netty's {@code IllegalArgumentException}
 * "port out of range:70000" when the server binds, for {@code server.port} or
 * {@code management.server.port} below 0 or above 65535) into Spring Boot's "APPLICATION FAILED TO
 * START" report naming the setting and what it takes. Any other {@code IllegalArgumentException} is
 * left to the next analyzer. Registered in {@code META-INF/spring.factories}. Stateless, thread-safe.
 */
public final class ServerPortFailureAnalyzer extends AbstractFailureAnalyzer<IllegalArgumentException> {

    private static final String OUT_OF_RANGE = "port out of range:";

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, IllegalArgumentException cause) {
        String message = cause.getMessage();
        if (message == null || !message.startsWith(OUT_OF_RANGE)) {
            return null;
        }
        return new FailureAnalysis("The port " + message.substring(OUT_OF_RANGE.length()).trim()
                + " is not one the service can listen on.",
                "Set server.port (environment: SERVER_PORT) to a port from 1 to 65535, or 0 for any free port"
                        + " (and management.server.port likewise, if it is set).",
                cause);
    }
}
