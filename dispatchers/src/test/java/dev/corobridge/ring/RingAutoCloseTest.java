package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.WAIT;
import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.ContextShutdownException;
import dev.corobridge.bridge.Task;
import dev.corobridge.pump.MessagePump;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link RingFile} and {@link RingConnection} are {@link AutoCloseable}: {@code close()} closes and
 * waits where blocking is allowed, and is refused — naming {@code closeAsync()} — on the pump and on
 * ring threads, where waiting would freeze the thread or wait for itself.
 */
class RingAutoCloseTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void tryWithResourcesClosesTheFileAndWaits(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            RingFile escaped;
            try (RingFile f = await(pool.openAsync(dir.resolve("twr.bin"), StandardOpenOption.CREATE, StandardOpenOption.WRITE))) {
                assertEquals(3, await(f.writeAsync(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0)));
                escaped = f;
            }
            assertTrue(escaped.isClosed());
            assertEquals(0, pool.getMetrics().openFiles(), "the close has completed when close() returns");
            RingIoException e = assertInstanceOf(RingIoException.class,
                    causeOf(() -> await(escaped.writeAsync(ByteBuffer.allocate(1), 0))));
            assertEquals("EBADF", e.errnoName());
            escaped.close(); // twice is fine
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closeIsRefusedOnThePumpNamingCloseAsync(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        MessagePump ui = MessagePump.start("autoclose-ui");
        try {
            RingFile f = await(pool.openAsync(dir.resolve("pump.bin"), StandardOpenOption.CREATE, StandardOpenOption.WRITE));
            Throwable refused = causeOf(() -> await(Task.start(ui, () -> {
                f.close();
                return "closed";
            })));
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, refused);
            assertTrue(e.getMessage().contains("closeAsync()"), e.getMessage());
            assertTrue(e.getMessage().contains("autoclose-ui"), e.getMessage());
            assertFalse(f.isClosed(), "a refused close does not start the close");
            // The non-blocking form works there.
            RingOp<Void> closing = await(Task.start(ui, f::closeAsync));
            await(closing);
            assertTrue(f.isClosed());
        } finally {
            ui.close();
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closeIsRefusedOnARingThread(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            RingFile f = await(pool.openAsync(dir.resolve("ring.bin"), StandardOpenOption.CREATE, StandardOpenOption.WRITE));
            Ring other = pool.getRings().get((f.getRing().getIndex() + 1) % pool.getRings().size());
            for (Ring r : java.util.List.of(f.getRing(), other)) {
                CompletableFuture<Throwable> onThisRing = new CompletableFuture<>();
                r.execute(() -> {
                    try {
                        f.close();
                        onThisRing.complete(null);
                    } catch (Throwable t) {
                        onThisRing.complete(t);
                    }
                });
                Throwable t = onThisRing.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                IllegalStateException e = assertInstanceOf(IllegalStateException.class, t, "on " + r);
                assertTrue(e.getMessage().contains("closeAsync()"), e.getMessage());
                assertTrue(e.getMessage().contains(r.getName()), e.getMessage());
            }
            assertFalse(f.isClosed());
            f.close(); // from the test thread: allowed
            assertTrue(f.isClosed());
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void closeAfterThePoolShutDownDoesNotHang(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        RingFile f = await(pool.openAsync(dir.resolve("late.bin"), StandardOpenOption.CREATE, StandardOpenOption.WRITE));
        stop(pool);
        try {
            f.close(); // the shutdown closed it already: nothing left to do
        } catch (ContextShutdownException expected) {
            // or the pool says it is gone: either way close() returned
        }
        assertTrue(f.isClosed());
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void connectionsAreAutoCloseableAndRefuseToBlockTheirRing(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        LinkedBlockingQueue<Throwable> onAccept = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();
        try (RingServer server = await(pool.bindAsync(ANY_LOOPBACK, c -> {
            try {
                c.close(); // onAccept runs on the connection's ring: refused
                onAccept.add(new AssertionError("close() blocked a ring thread"));
            } catch (Throwable t) {
                onAccept.add(t);
            }
            accepted.add(c);
        }))) {
            RingConnection escaped;
            try (RingConnection client = await(pool.connectAsync(server.getLocalAddress()))) {
                assertEquals(2, await(client.writeAsync(ByteBuffer.wrap(new byte[] {7, 8}), 2)));
                escaped = client;
            }
            assertFalse(escaped.isOpen());
            Throwable t = onAccept.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            IllegalStateException e = assertInstanceOf(IllegalStateException.class, t);
            assertTrue(e.getMessage().contains("closeAsync()"), e.getMessage());
            RingConnection session = accepted.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertTrue(session.isOpen(), "a refused close does not start the close");
            session.close(); // from the test thread: allowed, and waits
            assertFalse(session.isOpen());
            RingIoException closed = assertInstanceOf(RingIoException.class,
                    causeOf(() -> await(session.readAsync(ByteBuffer.allocate(1)))));
            assertEquals("EBADF", closed.errnoName());
        } finally {
            stop(pool);
        }
    }

    private static Throwable causeOf(org.junit.jupiter.api.function.Executable body) {
        Throwable t = assertThrows(Throwable.class, body);
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
