package dev.corobridge.demo.io;

import dev.corobridge.bridge.Awaitable;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Waits for one ring operation of the start-up or shutdown path (journal recovery, snapshots) on
 * the calling thread, bounded by a timeout, and reports any failure as an {@link IOException} that
 * names the operation, so a caller has one failure type to handle. A timeout leaves the operation
 * running (as {@link Awaitable#join(Duration)} does); an interrupt keeps the thread's interrupt
 * status. Never call it on the pump: it blocks. Stateless and thread-safe.
 */
public final class BoundedIo {

    private BoundedIo() {
    }

    /**
     * The value of {@code op} once it completes within {@code timeout}.
     *
     * @param what the operation and its file, for the message (e.g. {@code "read /data/x"})
     * @throws IOException when it fails, is cancelled, does not finish in time or the wait is
     *                     interrupted
     */
    public static <T> T await(Awaitable<T> op, Duration timeout, String what) throws IOException {
        try {
            return op.join(timeout);
        } catch (TimeoutException e) {
            throw new IOException(what + " did not finish within " + timeout, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(what + " interrupted", e);
        } catch (Exception e) {
            throw new IOException(what + " failed: " + e.getMessage(), e);
        }
    }
}
