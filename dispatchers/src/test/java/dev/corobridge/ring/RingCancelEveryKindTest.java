package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.TCP_SYN_SENT;
import static dev.corobridge.ring.RingTestSupport.WAIT;
import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.localPortsTo;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static dev.corobridge.ring.RingTestSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12, item 4, from Java: every kind of operation the pool offers can be cancelled with
 * {@link RingOp#cancel()}, the cancellation reaches the kernel or the transport, and what completes
 * after its awaiter left is closed. (Files: {@link RingOpCancelTest}; Kotlin: RingCancelEveryKindKotlinTest.)
 */
@SuppressWarnings("deprecation")
class RingCancelEveryKindTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /**
     * A listening socket that never accepts, with its accept queue full: a connect to it waits in
     * SYN_SENT (the kernel drops its SYN) until the queue gets room.
     */
    static final class FullBacklog implements AutoCloseable {
        final ServerSocket server;
        final List<Socket> fillers = new ArrayList<>();

        FullBacklog() throws IOException {
            server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            for (int i = 0; i < 2; i++) { // backlog 1: the queue holds two
                fillers.add(new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort()));
            }
        }

        InetSocketAddress address() {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort());
        }

        /** Local ports of sockets other than the fillers connecting or connected to this server. */
        List<Integer> others(int state) throws IOException {
            List<Integer> ports = localPortsTo(server.getLocalPort(), state);
            for (Socket s : fillers) {
                ports.remove(Integer.valueOf(s.getLocalPort()));
            }
            return ports;
        }

        /**
         * Sockets other than the fillers in SYN_SENT or ESTABLISHED toward this server (one closed
         * by its side lingers in FIN_WAIT/TIME_WAIT a while: not counted).
         */
        int connectingOrConnected() {
            try {
                return others(TCP_SYN_SENT).size() + others(RingTestSupport.TCP_ESTABLISHED).size();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        /** Accepts the fillers, so the queue has room again. */
        void makeRoom() throws IOException {
            for (int i = 0; i < fillers.size(); i++) {
                server.accept().close();
            }
        }

        @Override
        public void close() throws IOException {
            for (Socket s : fillers) {
                s.close();
            }
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancellingAConnectDecidesAtOnceAbortsItAndNothingConnectsLater(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try (FullBacklog peer = new FullBacklog()) {
            RingOp<RingConnection> connect = pool.connectAsync(peer.address());
            waitUntil(() -> others(peer, TCP_SYN_SENT) == 1, "the connect to wait in SYN_SENT");
            assertTrue(connect.cancel(), "nothing connected yet: this call decides");
            assertTrue(connect.isDone());
            assertInstanceOf(Outcome.Cancelled.class, connect.outcomeOrNull());
            peer.makeRoom(); // a connect still alive in the kernel now gets through, and would stay open
            waitUntil(() -> peer.connectingOrConnected() == 0, "no socket of ours connecting or connected to the peer");
        } finally {
            stop(pool);
        }
    }

    private static int others(FullBacklog peer, int state) {
        try {
            return peer.others(state).size();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancellingAWriteTheTransportIsSendingAbortsTheConnection(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        LinkedBlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();
        try (RingServer server = await(pool.bindAsync(ANY_LOOPBACK, accepted::add))) {
            RingConnection client = await(pool.connectAsync(server.getLocalAddress()));
            RingConnection session = accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertNotNull(session);
            // The session never reads: 32 MB cannot fit in the socket buffers, so the write stays in the
            // transport's hands.
            int n = 32 << 20;
            RingOp<Integer> write = client.writeAsync(ByteBuffer.allocateDirect(n), n);
            waitUntil(write::started, "the write to be handed to the transport");
            passedBy(client.getRing()); // and the transport to have tried to send it all
            assertFalse(write.isDone(), "the peer does not read: the write cannot have completed");
            assertFalse(write.cancel(), "the transport holds the bytes: it decides, not this call");
            assertThrows(CancellationException.class, () -> await(write));
            assertFalse(client.isOpen(), "the stream was cut mid-write: the connection is aborted");
            RingIoException later = assertInstanceOf(RingIoException.class,
                    RingSocketTest.causeOf(() -> await(client.writeAsync(ByteBuffer.allocate(1), 1))));
            assertEquals("EBADF", later.errnoName());
            await(session.closeAsync());
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancellingABindDecidesAtOnceAndNothingListens(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            int port;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = probe.getLocalPort(); // a free port, free again once the probe is closed
            }
            RingOp<RingServer> bind;
            try (LoopHold hold = new LoopHold(pool, null)) {
                bind = pool.bindAsync(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), c -> c.closeAsync());
                assertTrue(bind.cancel(), "not bound yet: this call decides");
                assertTrue(bind.isDone());
            }
            assertInstanceOf(Outcome.Cancelled.class, bind.outcomeOrNull());
            waitUntil(() -> pool.getMetrics().inFlight() == 0, "the pool to settle");
            // Nothing listens on the port: a server bound anyway would have been closed.
            passedBy(pool.getRings().get(0));
            passedBy(pool.getRings().get(1));
            assertThrows(java.net.ConnectException.class,
                    () -> new Socket(InetAddress.getLoopbackAddress(), port).close());
        } finally {
            stop(pool);
        }
    }

    /** Returns once the ring's thread has run everything queued to it before this call. */
    static void passedBy(Ring ring) throws InterruptedException {
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        ring.execute(done::countDown);
        assertTrue(done.await(WAIT.toSeconds(), TimeUnit.SECONDS));
    }
}
