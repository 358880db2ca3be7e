package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.WAIT;
import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link RingConnection#readAsync(ByteBuffer)} respects the buffer's position and limit as
 * {@link RingFile#readAsync(ByteBuffer, long)} (and {@code ReadableByteChannel.read}) do: it reads
 * into {@code [position, limit)}, advances the position by the count, and touches nothing else.
 */
class RingConnectionBufferTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @ParameterizedTest
    @EnumSource(Transport.class)
    void readFillsPositionToLimitAndAdvancesThePosition(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        LinkedBlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();
        try (RingServer server = await(pool.bindAsync(ANY_LOOPBACK, accepted::add))) {
            RingConnection client = await(pool.connectAsync(server.getLocalAddress()));
            RingConnection session = accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            byte[] hello = "hello".getBytes(StandardCharsets.US_ASCII);
            assertEquals(5, await(client.writeAsync(ByteBuffer.wrap(hello), 5)));

            byte[] backing = "##...##".getBytes(StandardCharsets.US_ASCII); // 7 bytes
            ByteBuffer buf = ByteBuffer.wrap(backing).position(2).limit(5);   // room for 3
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            while (buf.hasRemaining()) {
                int before = buf.position();
                int n = await(session.readAsync(buf));
                assertTrue(n > 0 && n <= 5 - before, "read " + n + " into " + (5 - before) + " bytes of room");
                assertEquals(before + n, buf.position(), "the position moves by the count");
                got.write(backing, before, n);
            }
            assertEquals(5, buf.limit(), "the limit is untouched");
            assertArrayEquals("hel".getBytes(StandardCharsets.US_ASCII), got.toByteArray());
            assertEquals("##hel##", new String(backing, StandardCharsets.US_ASCII), "nothing outside [position, limit) written");

            // The rest waits in the connection for the next read; a direct buffer works the same way.
            ByteBuffer direct = ByteBuffer.allocateDirect(8).position(6);
            int n = await(session.readAsync(direct));
            assertTrue(n >= 1 && n <= 2, "count " + n);
            assertEquals(6 + n, direct.position());
            assertEquals('l', direct.get(6));

            // No room: nothing to read into, the count is 0 at once (as ReadableByteChannel.read).
            assertEquals(0, await(session.readAsync(ByteBuffer.allocate(4).position(4))));
            await(client.closeAsync());
            await(session.closeAsync());
        } finally {
            stop(pool);
        }
    }
}
