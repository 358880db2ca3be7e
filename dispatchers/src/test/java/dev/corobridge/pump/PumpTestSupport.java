package dev.corobridge.pump;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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

    /** Runs a task on {@code p} that blocks the pump until the returned latch opens; returns once it runs. */
    static CountDownLatch blockWithATask(MessagePump p) throws InterruptedException {
        CountDownLatch inTask = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        p.execute(() -> {
            inTask.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        if (!inTask.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the blocking task did not start within " + WAIT);
        }
        return release;
    }

    static ShutdownReport stop(MessagePump pump) throws Exception {
        return pump.shutdown().get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
