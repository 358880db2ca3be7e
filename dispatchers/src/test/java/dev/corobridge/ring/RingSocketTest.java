package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Task;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Coroutine-style TCP echo on the ring pool, from Java (sessions on virtual threads). */
@SuppressWarnings("deprecation")
class RingSocketTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    /** The session code the issue asks for, literally. */
    private static void echo(RingConnection conn, AtomicInteger cleanEnds) {
        ByteBuffer buf = ByteBuffer.allocate(4096);
        try {
            int n;
            while ((n = conn.readAsync(buf.clear()).join()) > 0) {
                conn.writeAsync(buf, n).join();
            }
            conn.closeAsync().join();
            cleanEnds.incrementAndGet();
        } catch (Exception e) {
            conn.abortAsync();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void hundredConcurrentConnectionsEchoByteForByte(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        AtomicInteger serverCleanEnds = new AtomicInteger();
        try (RingServer server = await(pool.bindAsync(ANY_LOOPBACK,
                conn -> Thread.ofVirtual().start(() -> echo(conn, serverCleanEnds))))) {
            int clients = 100;
            List<Task<Boolean>> results = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                int seed = c;
                results.add(Task.startVirtual(() -> roundTrip(pool, server.getLocalAddress(), seed)));
            }
            assertEquals(clients, Task.allOf(results).join(Duration.ofSeconds(120)).stream().filter(b -> b).count());
            RingTestSupport.waitUntil(() -> serverCleanEnds.get() == clients, "every server session ended cleanly");
            RingTestSupport.waitUntil(() -> server.getConnections() == 0, "server closed every connection");
        } finally {
            stop(pool);
        }
    }

    private static boolean roundTrip(RingPool pool, InetSocketAddress address, int seed) throws Exception {
        byte[] data = new byte[16 * 1024 + seed * 97];
        new SplittableRandom(seed).nextBytes(data);
        RingConnection conn = pool.connectAsync(address).join(Duration.ofSeconds(30));
        // Read concurrently with writing: the echo may fill the socket buffers otherwise.
        CompletableFuture<byte[]> echoed = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                ByteArrayOutputStream got = new ByteArrayOutputStream();
                ByteBuffer in = ByteBuffer.allocate(3000);
                int n;
                while ((n = conn.readAsync(in.clear()).join()) > 0) {
                    got.write(in.array(), 0, n);
                }
                echoed.complete(got.toByteArray());
            } catch (Exception e) {
                echoed.completeExceptionally(e);
            }
        });
        ByteBuffer out = ByteBuffer.allocate(1000);
        for (int off = 0; off < data.length; off += 1000) {
            int n = Math.min(1000, data.length - off);
            out.clear().put(data, off, n);
            conn.writeAsync(out, n).join();
        }
        conn.shutdownOutputAsync().join();               // half close: the server's read sees the end
        byte[] back = echoed.get(60, java.util.concurrent.TimeUnit.SECONDS);
        assertArrayEquals(data, back, "echo mismatch for client " + seed);
        conn.closeAsync().join();
        return true;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aPeerResetWhileAReadWaitsIsATypedErrorNotAHang(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        CompletableFuture<Throwable> serverSaw = new CompletableFuture<>();
        CompletableFuture<RingConnection> firstReadDone = new CompletableFuture<>();
        try (RingServer server = await(pool.bindAsync(ANY_LOOPBACK, conn -> Thread.ofVirtual().start(() -> {
            ByteBuffer buf = ByteBuffer.allocate(64);
            try {
                conn.readAsync(buf.clear()).join();
                firstReadDone.complete(conn);
                while (conn.readAsync(buf.clear()).join() > 0) {
                    // drain until the reset
                }
                serverSaw.complete(null);
            } catch (Exception e) {
                serverSaw.complete(e);
            }
        })))) {
            RingConnection client = await(pool.connectAsync(server.getLocalAddress()));
            ByteBuffer b = ByteBuffer.allocate(8);
            await(client.writeAsync(b, 8));
            RingConnection serverSide = firstReadDone.get(30, java.util.concurrent.TimeUnit.SECONDS);
            RingTestSupport.waitUntil(serverSide::readPending, "the server's second read to wait for data");
            await(client.abortAsync());
            Throwable seen = serverSaw.get(30, java.util.concurrent.TimeUnit.SECONDS);
            Throwable cause = seen instanceof java.util.concurrent.CompletionException ? seen.getCause() : seen;
            RingIoException e = assertInstanceOf(RingIoException.class, cause, "the server's read must see the reset: " + seen);
            assertEquals("ECONNRESET", e.errnoName());
            // Operations on the aborted side fail typed too.
            RingIoException closed = assertInstanceOf(RingIoException.class, causeOf(() -> await(client.writeAsync(b, 1))));
            assertEquals("EBADF", closed.errnoName());
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void connectionRefusedIsTyped(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            InetSocketAddress dead;
            try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                dead = new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
            }
            RingIoException e = assertInstanceOf(RingIoException.class, causeOf(() -> await(pool.connectAsync(dead))));
            assertEquals("ECONNREFUSED", e.errnoName());
            assertTrue(e.getMessage().contains(String.valueOf(dead.getPort())), e.getMessage());
        } finally {
            stop(pool);
        }
    }

    static Throwable causeOf(org.junit.jupiter.api.function.Executable ex) {
        try {
            ex.execute();
        } catch (Throwable t) {
            return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
        }
        throw new AssertionError("expected a failure");
    }
}
