package dev.corobridge.pump;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Small helpers shared by the pump tests: bounded waits that fail clearly instead of hanging. */
final class PumpTestSupport {

    static final Duration WAIT = Duration.ofSeconds(30);

    private PumpTestSupport() {
    }

    /** Runs {@code body} on the pump and waits (bounded) for it. */
    static <T> T onPump(MessagePump pump, java.util.concurrent.Callable<T> body) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        pump.execute(() -> {
            try {
                f.complete(body.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return f.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    static void onPump(MessagePump pump, ThrowingRunnable body) throws Exception {
        onPump(pump, () -> {
            body.run();
            return null;
        });
    }

    static ShutdownReport stop(MessagePump pump) throws Exception {
        return pump.shutdown().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
