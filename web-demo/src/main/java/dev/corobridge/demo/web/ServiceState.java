package dev.corobridge.demo.web;

/**
 * Whether the service still takes requests: turned off once when the application context starts
 * closing, before graceful shutdown drains the requests in flight. Thread-safe (volatile).
 */
public final class ServiceState {

    private volatile boolean shuttingDown;

    public boolean isShuttingDown() {
        return shuttingDown;
    }

    public void shutDown() {
        shuttingDown = true;
    }
}
