package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The errno of a socket failure comes from the native error (io_uring: Netty's
 * recorded errno) or the exception's type (the JDK's NIO fallback), never from the message text.
 * A failure whose message does not happen to contain the words once matched ("in use", "refused")
 * still gets its real errno, not a catch-all EIO.
 */
@SuppressWarnings("deprecation")
class RingErrnoTest {

    @ParameterizedTest
    @EnumSource(Transport.class)
    void bindingAnAddressOfNoLocalInterfaceIsEaddrnotavail(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            // TEST-NET-2 (RFC 5737): documentation only, never an address of this host.
            InetSocketAddress foreign = new InetSocketAddress(InetAddress.getByName("198.51.100.7"), 0);
            RingIoException e = ioError(pool.bindAsync(foreign, c -> c.closeAsync()));
            assertEquals("EADDRNOTAVAIL", e.errnoName(), e.getMessage());
            assertEquals(Errno.EADDRNOTAVAIL, e.errno());
            assertEquals("bind", e.operation());
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void bindingAnAddressInUseIsEaddrinuseAndConnectingToNobodyIsEconnrefused(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), taken.getLocalPort());
            assertEquals(Errno.EADDRINUSE, ioError(pool.bindAsync(address, c -> c.closeAsync())).errno());
            int free;
            try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                free = probe.getLocalPort();
            }
            RingIoException refused = ioError(pool.connectAsync(new InetSocketAddress(InetAddress.getLoopbackAddress(), free)));
            assertEquals(Errno.ECONNREFUSED, refused.errno(), refused.getMessage());
            assertEquals("connect", refused.operation());
        } finally {
            stop(pool);
        }
    }

    /**
     * File failures carry the same errno on both engines: a read of a directory is EISDIR, a read
     * whose end lies beyond the largest file offset EINVAL. The fallback said EIO for both, which
     * reads like a failing device.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void aReadOfADirectoryIsEisdirAndOneBeyondTheLargestOffsetEinval(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("errno");
            java.nio.file.Path plain = java.nio.file.Files.writeString(dir.resolve("plain"), "abc");
            RingFile directory = await(pool.openAsync(dir, java.nio.file.StandardOpenOption.READ));
            RingIoException isDir = ioError(directory.readAsync(java.nio.ByteBuffer.allocate(8), 0));
            assertEquals("EISDIR", isDir.errnoName(), isDir.getMessage());
            await(directory.closeAsync());
            RingFile file = await(pool.openAsync(plain, java.nio.file.StandardOpenOption.READ));
            RingIoException beyond = ioError(file.readAsync(java.nio.ByteBuffer.allocate(8), Long.MAX_VALUE));
            assertEquals("EINVAL", beyond.errnoName(), beyond.getMessage());
            await(file.closeAsync());
        } finally {
            stop(pool);
        }
    }

    /**
     * Every EBADF an operation on a closed file fails with counts in the pool's {@code errors()},
     * also the ones refused at once, before reaching the ring (only the ring's were counted).
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void operationsRefusedOnAClosedFileCountAmongTheErrors(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            java.nio.file.Path plain = java.nio.file.Files.writeString(
                    java.nio.file.Files.createTempDirectory("errno").resolve("plain"), "abc");
            RingFile file = await(pool.openAsync(plain, java.nio.file.StandardOpenOption.READ));
            await(file.closeAsync());
            long before = pool.getMetrics().errors().getOrDefault("EBADF", 0L);
            for (int i = 0; i < 3; i++) {
                assertEquals("EBADF", ioError(file.readAsync(java.nio.ByteBuffer.allocate(8), 0)).errnoName());
            }
            assertEquals(before + 3, pool.getMetrics().errors().getOrDefault("EBADF", 0L));
        } finally {
            stop(pool);
        }
    }

    private static RingIoException ioError(RingOp<?> op) {
        return assertInstanceOf(RingIoException.class, RingSocketTest.causeOf(() -> await(op)));
    }
}
