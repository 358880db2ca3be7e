package dev.corobridge.demo.web.transport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Whether the service still takes requests: turned off once when the application context starts
 * closing, before the connections are drained and graceful shutdown waits for the requests in
 * flight.
 *
 * <p>Thread-safe. {@link #shutDown()} happens-before every {@link #isShuttingDown()} that returns
 * true and every action of {@link #whenShuttingDown()} (a completed {@link CompletableFuture}).
 */
public final class ServiceState {

    private final CompletableFuture<Void> shuttingDown = new CompletableFuture<>();

    public boolean isShuttingDown() {
        return shuttingDown.isDone();
    }

    /** Turns the service off; later calls do nothing. */
    public void shutDown() {
        shuttingDown.complete(null);
    }

    /** Completes when the service starts shutting down (at once if it already has). */
    public CompletionStage<Void> whenShuttingDown() {
        return shuttingDown.minimalCompletionStage();
    }
}
