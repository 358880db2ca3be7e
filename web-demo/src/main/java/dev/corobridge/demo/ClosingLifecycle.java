package dev.corobridge.demo;

import java.util.concurrent.atomic.AtomicBoolean;

import org.springframework.context.SmartLifecycle;

/**
 * A lifecycle whose only work is at the stop: it closes something (the change log) when its phase
 * of the application's shutdown comes, once. Thread-safe: the close runs on the thread that stops
 * it, at most once however often it is stopped.
 */
final class ClosingLifecycle implements SmartLifecycle {

    private final int phase;
    private final Runnable close;
    private final AtomicBoolean open = new AtomicBoolean();

    ClosingLifecycle(int phase, Runnable close) {
        this.phase = phase;
        this.close = close;
    }

    @Override
    public void start() {
        open.set(true);
    }

    @Override
    public void stop() {
        if (open.getAndSet(false)) {
            close.run();
        }
    }

    @Override
    public boolean isRunning() {
        return open.get();
    }

    @Override
    public int getPhase() {
        return phase;
    }
}
