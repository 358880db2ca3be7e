package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.WAIT;
import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.ContextShutdownException;
import dev.corobridge.pump.MessagePump;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12, item 5: binding a server never blocks the calling thread, so it is safe on the pump and
 * on a ring thread. The rings are held busy ({@link LoopHold}) while bind is called: a bind that
 * waited for them would be caught waiting.
 */
@SuppressWarnings("deprecation")
class RingServerBindTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @ParameterizedTest
    @EnumSource(Transport.class)
    void bindOnThePumpReturnsAtOnceAndAwaitingItThereIsRefused(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        MessagePump ui = MessagePump.start("bind-ui");
        LinkedBlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();
        try {
            RingOp<RingServer> op;
            try (LoopHold hold = new LoopHold(pool, null)) {
                CompletableFuture<RingOp<RingServer>> returned = new CompletableFuture<>();
                ui.execute(() -> returned.complete(pool.bindAsync(ANY_LOOPBACK, accepted::add)));
                op = returned.get(WAIT.toSeconds(), TimeUnit.SECONDS); // a blocking bind would still be waiting
                assertFalse(hold.expired());
                assertFalse(op.isDone(), "the rings are held: the bind cannot be done yet");
                CompletableFuture<Throwable> refused = new CompletableFuture<>();
                ui.execute(() -> {
                    try {
                        op.join();
                        refused.complete(null);
                    } catch (Throwable t) {
                        refused.complete(t);
                    }
                });
                IllegalStateException e = assertInstanceOf(IllegalStateException.class, refused.get(WAIT.toSeconds(), TimeUnit.SECONDS));
                assertTrue(e.getMessage().contains("must never block"), e.getMessage());
            }
            RingServer server = await(op);
            RingConnection client = await(pool.connectAsync(server.getLocalAddress()));
            assertNotNull(accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS), "the server accepts");
            await(client.closeAsync());
            server.close();
        } finally {
            ui.shutdown().get(30, TimeUnit.SECONDS);
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void bindAndCloseOnARingThreadReturnAtOnce(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        LinkedBlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();
        try {
            Ring caller = pool.getRings().get(0);
            RingOp<RingServer> op;
            try (LoopHold hold = new LoopHold(pool, caller)) {
                CompletableFuture<RingOp<RingServer>> returned = new CompletableFuture<>();
                caller.execute(() -> {
                    try {
                        returned.complete(pool.bindAsync(ANY_LOOPBACK, accepted::add));
                    } catch (Throwable t) {
                        returned.completeExceptionally(t); // e.g. Netty's BlockingOperationException
                    }
                });
                op = returned.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertFalse(hold.expired());
            }
            RingServer server = await(op);
            RingConnection client = await(pool.connectAsync(server.getLocalAddress()));
            assertNotNull(accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS), "the server accepts");
            // Close from the thread of the server's own loop: waiting there would wait for itself.
            Ring own = pool.ringOf(server.channelEventLoop());
            CompletableFuture<Throwable> closed = new CompletableFuture<>();
            own.execute(() -> {
                try {
                    server.close();
                    closed.complete(null);
                } catch (Throwable t) {
                    closed.complete(t);
                }
            });
            assertEquals(null, closed.get(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(server.isClosed());
            await(client.closeAsync());
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void bindAfterShutdownAndBindFailuresSettleTheOperation(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            RingServer first = await(pool.bindAsync(ANY_LOOPBACK, c -> c.closeAsync()));
            RingOp<RingServer> taken = pool.bindAsync(first.getLocalAddress(), c -> c.closeAsync());
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> await(taken));
            RingIoException io = assertInstanceOf(RingIoException.class,
                    e instanceof java.util.concurrent.CompletionException ? e.getCause() : e);
            assertEquals("EADDRINUSE", io.errnoName());
            assertEquals("bind", io.operation());
            first.close();
        } finally {
            stop(pool);
        }
        RingOp<RingServer> late = pool.bindAsync(ANY_LOOPBACK, c -> c.closeAsync());
        assertInstanceOf(ContextShutdownException.class, late.outcomeOrNull().errorOrNull());
    }
}
