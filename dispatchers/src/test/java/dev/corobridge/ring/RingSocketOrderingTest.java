package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import dev.corobridge.bridge.Tasks;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The order a connection's operations are called in is the order they take effect, on both
 * transports: a half-close comes after the writes called before it (the peer reads their bytes,
 * then the end), and a close after that settles. An {@code onAccept} that throws leaves no
 * connection open, and a connect to a host name never resolves it on a ring's thread.
 */
class RingSocketOrderingTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** Everything the peer receives until the end of stream. */
    private static byte[] drain(Socket peer) throws IOException {
        peer.setSoTimeout(30_000);
        InputStream in = peer.getInputStream();
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        byte[] b = new byte[65536];
        int n;
        while ((n = in.read(b)) > 0) {
            all.write(b, 0, n);
        }
        return all.toByteArray();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aHalfCloseComesAfterTheWritesCalledBeforeItAndACloseAfterItSettles(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            BlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();
            RingServer server = await(pool.bindAsync(ANY_LOOPBACK, accepted::add));
            byte[] big = new byte[4 << 20];
            for (int i = 0; i < big.length; i++) {
                big[i] = (byte) i;
            }
            for (int round = 0; round < 20; round++) {
                try (Socket peer = new Socket(InetAddress.getLoopbackAddress(), server.getLocalAddress().getPort())) {
                    RingConnection conn = accepted.poll(30, TimeUnit.SECONDS);
                    boolean large = round % 4 == 3; // still being sent when the half-close is called
                    byte[] payload = large ? big : ("hello " + round + "\n").getBytes(StandardCharsets.US_ASCII);
                    RingOp<Integer> write = conn.writeAsync(ByteBuffer.wrap(payload), payload.length); // not awaited
                    RingOp<Void> shut = conn.shutdownOutputAsync();
                    byte[] got = drain(peer); // up to the end the half-close sends
                    assertEquals(payload.length, got.length, "round " + round + ": bytes before the end; write "
                            + write.outcomeOrNull() + ", shutdown " + shut.outcomeOrNull());
                    assertEquals(Integer.valueOf(payload.length), await(write), "round " + round);
                    await(shut);
                    RingOp<Void> close = conn.closeAsync();
                    await(close); // settles: it hung after a half-close that overtook a write
                }
            }
            RingTestSupport.waitUntil(() -> server.getConnections() == 0, "the server closed every connection");
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aConnectionWhoseOnAcceptThrowsIsClosedAndTheFailureReported(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        var handler = Tasks.setUncaughtFailureHandler((a, e) -> reported.add(e));
        try {
            BlockingQueue<RingConnection> handed = new LinkedBlockingQueue<>();
            RingServer server = await(pool.bindAsync(ANY_LOOPBACK, c -> {
                handed.add(c);
                throw new IllegalStateException("a bug in the accept handler");
            }));
            try (Socket peer = new Socket(InetAddress.getLoopbackAddress(), server.getLocalAddress().getPort())) {
                RingConnection conn = handed.poll(30, TimeUnit.SECONDS);
                RingTestSupport.waitUntil(() -> !conn.isOpen(), "the connection closed after its onAccept threw");
                RingTestSupport.waitUntil(() -> server.getConnections() == 0, "the server no longer holds it");
                peer.setSoTimeout(30_000);
                assertEquals(-1, peer.getInputStream().read(), "the peer sees the end");
                assertTrue(reported.stream().anyMatch(e -> "a bug in the accept handler".equals(e.getMessage())), reported.toString());
            }
        } finally {
            Tasks.setUncaughtFailureHandler(handler);
            stop(pool);
        }
    }

    @Test
    void aConnectToAHostNameResolvesItOffTheRingsThreads() throws Exception {
        RingPool pool = RingPool.start(RingPoolConfig.builder().name("resolve").rings(1).build());
        try {
            RingServer server = await(pool.bindAsync(ANY_LOOPBACK, RingConnection::closeAsync));
            HeldNameResolver.hold();
            RingOp<RingConnection> connect = pool.connectAsync(
                    InetSocketAddress.createUnresolved(HeldNameResolver.HELD_HOST, server.getLocalAddress().getPort()));
            assertTrue(HeldNameResolver.entered.await(30, TimeUnit.SECONDS), "the name is being resolved");
            try {
                for (Ring ring : pool.getRings()) {
                    CountDownLatch ran = new CountDownLatch(1);
                    ring.execute(ran::countDown);
                    assertTrue(ran.await(10, TimeUnit.SECONDS), ring + " stood still while the name was resolved");
                }
                assertFalse(connect.isDone());
            } finally {
                HeldNameResolver.release();
            }
            RingConnection conn = await(connect);
            assertEquals(server.getLocalAddress().getPort(), ((InetSocketAddress) conn.getRemoteAddress()).getPort());
            await(conn.closeAsync());

            RingOp<RingConnection> unknown = pool.connectAsync(InetSocketAddress.createUnresolved("no-such-host.invalid", 80));
            RingTestSupport.waitUntil(unknown::isDone, "the unknown host's connect");
            Outcome<RingConnection> o = unknown.outcomeOrNull();
            RingIoException e = assertInstanceOf(RingIoException.class, o.errorOrNull(), o.toString());
            assertTrue(e.getMessage().contains("no-such-host.invalid") && e.getMessage().contains("resolve"), e.getMessage());
        } finally {
            stop(pool);
        }
    }
}
