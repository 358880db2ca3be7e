package dev.corobridge.ring;

import dev.corobridge.bridge.internal.BlockingGuard;
import dev.corobridge.bridge.Outcome;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * The blocking {@code close()} of {@link RingFile} and {@link RingConnection} ({@link AutoCloseable},
 * for try-with-resources): refuse on threads that must not block, else start the close and wait for
 * it.
 *
 * <p>Refused on the pump (any thread that {@code BlockingGuard} marks non-blocking) and on every
 * thread of the resource's pool: a ring thread waiting for its own close would wait for itself, and
 * the pump would freeze. The message names {@code closeAsync()}, the non-blocking form. The wait is
 * uninterruptible (a close settles promptly: the ring orders it, or the pool's shutdown settles it);
 * an interrupt that arrives meanwhile is restored before returning.
 *
 * <p><b>Thread-safety.</b> Stateless; safe from any thread.
 */
final class BlockingClose {

    private BlockingClose() {
    }

    /**
     * Refuses on a non-blocking thread, else runs {@code close} and waits for its outcome.
     *
     * @throws IllegalStateException on the pump or a ring thread of {@code ring}'s pool
     * @throws IOException           if the close failed with a {@link RingIoException}
     */
    static void closeAndWait(Ring ring, Object resource, Supplier<RingOp<Void>> close) throws IOException {
        String refusal = refusal(ring);
        if (refusal != null) {
            throw new IllegalStateException(resource + ".close() would block " + refusal
                    + ", which must never block. Use closeAsync() instead (from Kotlin: closeAsync().await()).");
        }
        RingOp<Void> op = close.get();
        CountDownLatch settled = new CountDownLatch(1);
        op.onComplete(outcome -> settled.countDown());
        boolean interrupted = false;
        while (true) {
            try {
                settled.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // a close is not abandoned half-way: finish waiting, then restore
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        switch (op.outcomeOrNull()) {
            case Outcome.Failure<Void> f when f.error() instanceof IOException io -> throw io;
            case Outcome.Failure<Void> f when f.error() instanceof RuntimeException re -> throw re;
            case Outcome.Failure<Void> f when f.error() instanceof Error err -> throw err;
            case Outcome.Failure<Void> f -> throw new IllegalStateException(resource + ": close failed", f.error());
            case Outcome.Cancelled<Void> c -> throw c.cause(); // the pool shut down: ContextShutdownException
            case null, default -> { }
        }
    }

    /** Which thread this is, if it must not block; {@code null} if it may. */
    private static String refusal(Ring ring) {
        String context = BlockingGuard.forbiddenContext();
        if (context != null) {
            return "the thread of '" + context + "' (" + Thread.currentThread().getName() + ")";
        }
        for (Ring r : ring.getPool().getRings()) {
            if (r.isCurrentThread()) {
                return "the thread of ring '" + r.getName() + "' (" + Thread.currentThread().getName() + ")";
            }
        }
        return null;
    }
}
