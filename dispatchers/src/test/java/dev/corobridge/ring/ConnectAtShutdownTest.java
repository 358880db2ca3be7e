package dev.corobridge.ring;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import dev.corobridge.bridge.ContextShutdownException;

/**
 * A connect still in flight when the pool shuts down ends as shut down
 * ({@link ContextShutdownException}), as every operation in flight does, and has ended by the time
 * the pool has terminated. It failed with {@code EBADF} (its channel closed under it by the
 * loops' shutdown), and on io_uring it could stay pending for good: the loop that would have told
 * it had stopped.
 */
class ConnectAtShutdownTest {

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aConnectInFlightEndsAsShutDownByTheTermination(Transport transport) throws Exception {
        for (int round = 0; round < 5; round++) {
            RingPool pool = RingTestSupport.pool(transport);
            try (ServerSocket server = new ServerSocket(0, 1)) {
                InetSocketAddress address = new InetSocketAddress("127.0.0.1", server.getLocalPort());
                // Fill the backlog (never accepted), so that a further connect stays in the kernel.
                RingOp<RingConnection> connect = null;
                for (int i = 0; i < 64 && connect == null; i++) {
                    RingOp<RingConnection> c = pool.connectAsync(address);
                    if (!doneWithin(c, 100)) { // a loopback connect the backlog takes completes at once
                        connect = c;
                    }
                }
                assertTrue(connect != null, "a connect stays in flight once the backlog is full");
                pool.shutdown().get(60, TimeUnit.SECONDS);
                assertTrue(connect.isDone(), "round " + round + ": the connect is still pending after the termination");
                assertInstanceOf(ContextShutdownException.class, connect.outcomeOrNull().errorOrNull(),
                        "round " + round + ": " + connect.outcomeOrNull());
            } finally {
                RingTestSupport.stop(pool);
            }
        }
    }

    /** Whether {@code op} is done within {@code millis} (polled every millisecond). */
    private static boolean doneWithin(RingOp<?> op, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!op.isDone() && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(1_000_000);
        }
        return op.isDone();
    }
}
