package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.TCP_CLOSE_WAIT;
import static dev.corobridge.ring.RingTestSupport.TCP_GONE;
import static dev.corobridge.ring.RingTestSupport.WAIT;
import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static dev.corobridge.ring.RingTestSupport.tcpState;
import static dev.corobridge.ring.RingTestSupport.tcpUnread;
import static dev.corobridge.ring.RingTestSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.ContextShutdownException;
import dev.corobridge.bridge.Outcome;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Peer resets, ends and local closes that arrive while no read is outstanding (and the other orders),
 * on both transports. Every scenario repeats {@link #REPS} times on fresh connections, and every
 * operation must settle within {@link RingTestSupport#WAIT}: a lost event shows up as {@code HANG}.
 *
 * <p>No sleeps: a test that needs "the RST/FIN has arrived" waits until the kernel says so
 * ({@code /proc/net/tcp}: the socket is gone after a reset, in CLOSE_WAIT after a FIN) and, on
 * io_uring (where Netty watches for the peer's end even with no read pending), until the connection
 * has recorded it.
 */
@SuppressWarnings("deprecation")
class RingSocketResetTest {

    static {
        // The adopted-group test below creates Netty io_uring loops itself: apply corobridge's Netty
        // settings first, as RingPool would (see NettyUringSettings), whatever order tests run in.
        NettyUringSettings.apply();
    }

    /** Repetitions per scenario; {@code -Dcorobridge.test.socketReps=1000} for a longer soak. */
    static final int REPS = Integer.getInteger("corobridge.test.socketReps", 200);

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final byte[] HELLO = "abcdefgh".getBytes(StandardCharsets.US_ASCII);

    /** A pool, a server whose accepted connections are handed to the test, and a way to make pairs. */
    private static final class Rig implements AutoCloseable {
        final Transport transport;
        final RingPool pool;
        final RingServer server;
        final LinkedBlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();

        Rig(Transport transport) throws Exception {
            this.transport = transport;
            this.pool = pool(transport);
            this.server = await(pool.bindAsync(ANY_LOOPBACK, accepted::add));
        }

        /** A connected pair: {@code [client, server side]}. */
        RingConnection[] pair() throws Exception {
            RingConnection c = await(pool.connectAsync(server.getLocalAddress()));
            RingConnection s = accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(s != null, "the server accepted the connection");
            assertEquals(port(c.getLocalAddress()), port(s.getRemoteAddress()), "pairs are made one at a time");
            return new RingConnection[] {c, s};
        }

        /**
         * Waits until {@code conn}'s peer reset has arrived: the kernel has processed it and, on io_uring
         * (where Netty watches for the peer's end even with no read pending), the connection has taken
         * in something since {@code before} = {@link RingConnection#recorded()} read before the reset.
         */
        void resetArrived(RingConnection conn, int before) throws Exception {
            waitUntil(() -> kernelState(conn) == TCP_GONE, "the kernel to process the peer's reset");
            if (transport == Transport.IO_URING) {
                waitUntil(() -> conn.recorded() > before, "the connection to take in the reset with no read pending");
            }
        }

        /** The same for the peer's FIN (the socket is then in CLOSE_WAIT). */
        void finArrived(RingConnection conn, int before) throws Exception {
            waitUntil(() -> kernelState(conn) == TCP_CLOSE_WAIT, "the kernel to process the peer's FIN");
            if (transport == Transport.IO_URING) {
                waitUntil(() -> conn.recorded() > before, "the connection to take in the end with no read pending");
            }
        }

        @Override
        public void close() throws Exception {
            try {
                server.close();
            } finally {
                stop(pool);
            }
        }
    }

    private static int port(java.net.SocketAddress a) {
        return ((InetSocketAddress) a).getPort();
    }

    private static int kernelState(RingConnection conn) {
        try {
            return tcpState(port(conn.getLocalAddress()), port(conn.getRemoteAddress()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long kernelUnread(RingConnection conn) {
        try {
            return tcpUnread(port(conn.getLocalAddress()), port(conn.getRemoteAddress()));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** How an operation ended: {@code n=K}, {@code EOF}, an errno name, {@code SHUTDOWN}, or {@code HANG}. */
    static String outcome(RingOp<?> op) throws InterruptedException {
        try {
            op.join(WAIT);
        } catch (TimeoutException e) {
            return "HANG";
        } catch (Exception settled) {
            // inspected below
        }
        Outcome<?> o = op.outcomeOrNull();
        if (o instanceof Outcome.Success<?> s) {
            return s.value() instanceof Integer n ? (n < 0 ? "EOF" : "n=" + n) : "ok";
        }
        Throwable e = o.errorOrNull();
        if (e instanceof RingIoException r) {
            return r.errnoName();
        }
        if (e instanceof ContextShutdownException) {
            return "SHUTDOWN";
        }
        return String.valueOf(e);
    }

    private static String read(RingConnection c, ByteBuffer buf) throws InterruptedException {
        return outcome(c.readAsync(buf.clear()));
    }

    private static String write(RingConnection c, byte[] data) throws InterruptedException {
        return outcome(c.writeAsync(ByteBuffer.wrap(data), data.length));
    }

    // ------------------------------------------------------------------ resets

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aResetThatArrivesBeforeTheReadIsIssuedFailsTheReadAfterTheBufferedBytes(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < REPS; i++) {
                RingConnection[] p = rig.pair();
                RingConnection client = p[0];
                RingConnection server = p[1];
                assertEquals("n=8", write(client, HELLO));
                waitUntil(() -> kernelUnread(server) == HELLO.length, "the 8 bytes to reach the server's socket");
                int before = server.recorded();
                assertEquals("ok", outcome(client.abortAsync()));
                rig.resetArrived(server, before);
                String rep = "rep " + i + " on " + t;
                assertEquals("n=8", read(server, buf), rep + ": bytes received before the reset come first");
                assertEquals("ECONNRESET", read(server, buf), rep);
                assertEquals("ECONNRESET", read(server, buf), rep + ": the reset is sticky");
                assertEquals("ECONNRESET", write(server, HELLO), rep);
                assertTrue(server.isOpen(), rep + ": a reset does not close the connection; close() does");
                assertEquals("ok", outcome(server.closeAsync()), rep);
                assertEquals("EBADF", read(server, buf), rep);
                assertFalse(server.isOpen(), rep);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aResetWithNothingBufferedIsAResetNotAnEnd(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < REPS; i++) {
                RingConnection[] p = rig.pair();
                int before = p[1].recorded();
                assertEquals("ok", outcome(p[0].abortAsync()));
                rig.resetArrived(p[1], before);
                assertEquals("ECONNRESET", read(p[1], buf), "rep " + i + " on " + t);
                assertEquals("ok", outcome(p[1].closeAsync()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aResetBetweenTwoReadsFailsTheSecond(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < REPS; i++) {
                RingConnection[] p = rig.pair();
                assertEquals("n=8", write(p[0], HELLO));
                assertEquals("n=8", read(p[1], buf));
                int before = p[1].recorded();
                assertEquals("ok", outcome(p[0].abortAsync()));
                rig.resetArrived(p[1], before);
                assertEquals("ECONNRESET", read(p[1], buf), "rep " + i + " on " + t);
                assertEquals("ok", outcome(p[1].closeAsync()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aWriteAfterAResetFailsAndSoDoReadsAfterIt(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < REPS; i++) {
                RingConnection[] p = rig.pair();
                int before = p[1].recorded();
                assertEquals("ok", outcome(p[0].abortAsync()));
                rig.resetArrived(p[1], before);
                String rep = "rep " + i + " on " + t;
                assertEquals("ECONNRESET", write(p[1], HELLO), rep);
                assertEquals("ECONNRESET", write(p[1], HELLO), rep);
                assertEquals("ECONNRESET", read(p[1], buf), rep);
                assertEquals("ok", outcome(p[1].closeAsync()));
                assertEquals("EBADF", write(p[1], HELLO), rep);
            }
        }
    }

    /**
     * The race that hung in CI: the peer's data and its reset arrive while the reads are being issued
     * (no waiting for the kernel here). Netty's read of the data can swallow the reset's wake-up; the
     * next read must still see the reset.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aResetRacingWithTheReadsIsNeverMissed(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < REPS; i++) {
                RingConnection[] p = rig.pair();
                assertEquals("n=8", write(p[0], HELLO));
                p[0].abortAsync();
                String rep = "rep " + i + " on " + t;
                String first = read(p[1], buf);
                if (first.equals("n=8")) {
                    assertEquals("ECONNRESET", read(p[1], buf), rep);
                } else {
                    // the RST overtook the bytes before they were taken in: they may be gone
                    assertEquals("ECONNRESET", first, rep);
                }
                assertEquals("ECONNRESET", read(p[1], buf), rep);
                assertEquals("ok", outcome(p[1].closeAsync()));
            }
        }
    }

    /** The same race with a clean end: data then FIN, while the reads are being issued. */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void anEndRacingWithTheReadsIsNeverMissed(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < REPS; i++) {
                RingConnection[] p = rig.pair();
                assertEquals("n=8", write(p[0], HELLO));
                p[0].close();
                String rep = "rep " + i + " on " + t;
                assertEquals("n=8", read(p[1], buf), rep);
                assertEquals("EOF", read(p[1], buf), rep);
                assertEquals("ok", outcome(p[1].closeAsync()));
            }
        }
    }

    // ------------------------------------------------------------------ the peer's clean end

    @ParameterizedTest
    @EnumSource(Transport.class)
    void anEndThatArrivesBeforeTheReadIsIssuedIsMinusOneAfterTheBytesAndWritesStillWork(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < REPS; i++) {
                RingConnection[] p = rig.pair();
                RingConnection client = p[0];
                RingConnection server = p[1];
                assertEquals("n=8", write(client, HELLO));
                waitUntil(() -> kernelUnread(server) == HELLO.length, "the 8 bytes to reach the server's socket");
                int before = server.recorded();
                assertEquals("ok", outcome(client.shutdownOutputAsync()));
                rig.finArrived(server, before);
                String rep = "rep " + i + " on " + t;
                assertEquals("n=8", read(server, buf), rep);
                assertEquals("EOF", read(server, buf), rep);
                assertEquals("EOF", read(server, buf), rep + ": the end is sticky");
                assertEquals("n=8", write(server, HELLO), rep + ": half-closed, the other direction still works");
                assertEquals("n=8", read(client, buf), rep);
                assertEquals("ok", outcome(server.closeAsync()));
                assertEquals("EOF", read(client, buf), rep);
                assertEquals("ok", outcome(client.closeAsync()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aWriteAfterShutdownOutputIsEpipeAndReadsGoOn(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            RingConnection[] p = rig.pair();
            assertEquals("ok", outcome(p[0].shutdownOutputAsync()));
            assertEquals("EPIPE", write(p[0], HELLO));
            assertEquals("n=8", write(p[1], HELLO));
            assertEquals("n=8", read(p[0], buf));
            assertEquals("EOF", read(p[1], buf));
            assertEquals("ok", outcome(p[1].closeAsync()));
            assertEquals("EOF", read(p[0], buf));
            assertEquals("ok", outcome(p[0].closeAsync()));
        }
    }

    // ------------------------------------------------------------------ local closes

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aCloseWhileAReadWaitsFailsTheReadWithEbadf(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < REPS; i++) {
                RingConnection[] p = rig.pair();
                RingConnection server = p[1];
                RingOp<Integer> waiting = server.readAsync(buf.clear());
                waitUntil(server::readPending, "the read to wait for data");
                assertEquals("ok", outcome(server.closeAsync()));
                String rep = "rep " + i + " on " + t;
                assertEquals("EBADF", outcome(waiting), rep);
                assertEquals("EBADF", read(server, buf), rep);
                assertEquals("EBADF", write(server, HELLO), rep);
                assertEquals("ok", outcome(server.closeAsync()), rep + ": close is idempotent");
                assertEquals("EOF", read(p[0], buf), rep + ": the peer sees a clean end");
                assertEquals("ok", outcome(p[0].closeAsync()));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aCloseFromAnotherThreadEndsAReaderAndAWriterWhereverTheyAre(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            for (int i = 0; i < REPS; i++) {
                RingConnection[] p = rig.pair();
                RingConnection client = p[0];
                RingConnection server = p[1];
                CountDownLatch go = new CountDownLatch(1);
                List<String> readerEnd = new ArrayList<>();
                List<String> writerEnd = new ArrayList<>();
                Thread reader = Thread.ofVirtual().start(() -> {
                    ByteBuffer b = ByteBuffer.allocate(16);
                    try {
                        go.await();
                        String o;
                        while ((o = read(server, b)).startsWith("n=")) {
                            // keep reading
                        }
                        readerEnd.add(o);
                    } catch (InterruptedException e) {
                        readerEnd.add("interrupted");
                    }
                });
                Thread writer = Thread.ofVirtual().start(() -> {
                    try {
                        go.await();
                        String o;
                        while ((o = write(server, HELLO)).startsWith("n=")) {
                            // keep writing (the client drains below)
                        }
                        writerEnd.add(o);
                    } catch (InterruptedException e) {
                        writerEnd.add("interrupted");
                    }
                });
                Thread drain = Thread.ofVirtual().start(() -> {
                    ByteBuffer b = ByteBuffer.allocate(4096);
                    try {
                        while (read(client, b).startsWith("n=")) {
                            // the server's writes land here
                        }
                    } catch (InterruptedException ignored) {
                        // ends with the test
                    }
                });
                assertEquals("n=8", write(client, HELLO));
                go.countDown();
                assertEquals("ok", outcome(server.closeAsync()));
                String rep = "rep " + i + " on " + t;
                assertTrue(reader.join(WAIT), rep + ": the reader ended");
                assertTrue(writer.join(WAIT), rep + ": the writer ended");
                assertEquals(List.of("EBADF"), readerEnd, rep);
                assertEquals(List.of("EBADF"), writerEnd, rep);
                assertTrue(drain.join(WAIT), rep + ": the peer saw the end");
                assertEquals("ok", outcome(client.closeAsync()));
            }
        }
    }

    // ------------------------------------------------------------------ servers and the pool's shutdown

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closingTheServerEndsWaitingSessionsAndStopsAccepting(Transport t) throws Exception {
        try (Rig rig = new Rig(t)) {
            ByteBuffer buf = ByteBuffer.allocate(64);
            RingConnection[] p = rig.pair();
            RingOp<Integer> waiting = p[1].readAsync(buf.clear());
            waitUntil(p[1]::readPending, "the session's read to wait");
            InetSocketAddress address = rig.server.getLocalAddress();
            rig.server.close();
            assertEquals("EBADF", outcome(waiting), "the server closed the session's connection under it");
            assertEquals("EOF", read(p[0], buf));
            assertEquals(0, rig.server.getConnections());
            assertEquals("ECONNREFUSED", outcome(rig.pool.connectAsync(address)), "no accepting after close");
            assertEquals("ok", outcome(p[0].closeAsync()));
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aConnectionAcceptedWhileTheServerClosesIsClosedNotLeaked(Transport t) throws Exception {
        RingPool pool = pool(t);
        try {
            ByteBuffer buf = ByteBuffer.allocate(64);
            for (int i = 0; i < Math.max(1, REPS / 10); i++) {
                LinkedBlockingQueue<RingConnection> handedOut = new LinkedBlockingQueue<>();
                RingServer server = await(pool.bindAsync(ANY_LOOPBACK, handedOut::add));
                InetSocketAddress address = server.getLocalAddress();
                List<RingConnection> clients = new java.util.concurrent.CopyOnWriteArrayList<>();
                CountDownLatch first = new CountDownLatch(1);
                Thread connector = Thread.ofVirtual().start(() -> {
                    try {
                        while (true) {
                            RingOp<RingConnection> c = pool.connectAsync(address);
                            if (!outcome(c).equals("ok")) {
                                return; // refused: the server has closed
                            }
                            clients.add(c.resultNow());
                            first.countDown();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                assertTrue(first.await(WAIT.toSeconds(), TimeUnit.SECONDS));
                server.close();
                assertTrue(connector.join(WAIT), "connects are refused once the server has closed");
                String rep = "rep " + i + " on " + t;
                for (RingConnection c : clients) {
                    // A byte first: a client whose handshake completed just as the listener closed can
                    // be left half-open by the kernel (ESTABLISHED here, nothing at the server's end,
                    // no FIN or RST sent), which TCP only reveals when it sends: the reply is a reset.
                    // A connection the server leaked would take the byte and never end: still a HANG.
                    String w = write(c, HELLO);
                    assertTrue(w.equals("n=8") || w.equals("ECONNRESET") || w.equals("EPIPE") || w.equals("EBADF"),
                            rep + ": the write is taken or refused, got " + w);
                    String o = read(c, buf);
                    // The end as the peer's FIN, its reset, or (documented in RingConnection) a channel
                    // the transport closed before either was recorded: never a hang or a byte.
                    assertTrue(o.equals("EOF") || o.equals("ECONNRESET") || o.equals("EBADF"),
                            rep + ": every client sees the end, got " + o + " on " + c.getLocalAddress() + " -> "
                                    + c.getRemoteAddress());
                    assertEquals("ok", outcome(c.closeAsync()));
                }
                waitUntil(() -> server.getConnections() == 0, "the server to close every connection");
                for (RingConnection c : handedOut) {
                    waitUntil(() -> !c.isOpen(), "every handed-out connection to be closed");
                }
            }
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void thePoolsShutdownFailsWaitingReadsAndStopsItsServers(Transport t) throws Exception {
        for (int i = 0; i < Math.max(1, REPS / 10); i++) {
            RingPool pool = pool(t);
            LinkedBlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();
            RingServer server = await(pool.bindAsync(ANY_LOOPBACK, accepted::add));
            shutdownScenario(pool, server, accepted);
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void anAdoptedGroupsLoopsKeepRunningButThePoolsSocketsStop(Transport t) throws Exception {
        io.netty.channel.MultiThreadIoEventLoopGroup shared = new io.netty.channel.MultiThreadIoEventLoopGroup(2,
                t == Transport.IO_URING ? io.netty.channel.uring.IoUringIoHandler.newFactory()
                        : io.netty.channel.nio.NioIoHandler.newFactory());
        try {
            RingPool pool = RingPool.adopt(shared, RingPoolConfig.builder().name("adopted-sockets").build());
            assertEquals(t, pool.getMetrics().transport());
            LinkedBlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();
            RingServer server = await(pool.bindAsync(ANY_LOOPBACK, accepted::add));
            shutdownScenario(pool, server, accepted);
            assertFalse(shared.isShuttingDown(), "an adopted group is not ours to stop");
        } finally {
            shared.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    private static void shutdownScenario(RingPool pool, RingServer server, LinkedBlockingQueue<RingConnection> accepted)
            throws Exception {
        ByteBuffer a = ByteBuffer.allocate(64);
        ByteBuffer b = ByteBuffer.allocate(64);
        RingConnection client = await(pool.connectAsync(server.getLocalAddress()));
        RingConnection session = accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(session != null);
        RingOp<Integer> sessionRead = session.readAsync(a.clear());
        RingOp<Integer> clientRead = client.readAsync(b.clear());
        waitUntil(() -> session.readPending() && client.readPending(), "both reads to wait");
        int port = server.getLocalAddress().getPort();
        pool.shutdown().get(60, TimeUnit.SECONDS);
        assertEquals("SHUTDOWN", outcome(sessionRead));
        assertEquals("SHUTDOWN", outcome(clientRead));
        assertEquals("SHUTDOWN", read(session, a));
        assertEquals("SHUTDOWN", write(client, HELLO));
        assertFalse(client.isOpen());
        assertTrue(server.isClosed());
        assertNothingListensOn(port);
    }

    /**
     * A connection to {@code port} is refused. One case is not a listener: the kernel may give the
     * connecting socket {@code port} itself as its local port (the server's port was an ephemeral
     * one), and a TCP connection to its own address and port connects to itself.
     */
    private static void assertNothingListensOn(int port) throws Exception {
        try (java.net.Socket s = new java.net.Socket(InetAddress.getLoopbackAddress(), port)) {
            assertEquals(port, s.getLocalPort(), "the pool's server still accepts on " + port);
        } catch (java.net.ConnectException refused) {
            assertTrue(refused.getMessage().contains("refused"), refused.getMessage());
        }
    }
}
