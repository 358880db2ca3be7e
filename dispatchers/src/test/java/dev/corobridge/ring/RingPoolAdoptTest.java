package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.uring.IoUringIoHandler;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A pool over someone else's loops (e.g. Reactor Netty's): used, not owned. */
@SuppressWarnings("deprecation")
class RingPoolAdoptTest {

    static {
        // These tests create Netty io_uring loops before any RingPool: apply corobridge's Netty
        // settings first, as RingPool would (see NettyUringSettings), whatever order tests run in.
        NettyUringSettings.apply();
    }

    @TempDir
    Path dir;

    @Test
    void adoptedIoUringLoopsAreUsedAndLeftRunning() throws Exception {
        MultiThreadIoEventLoopGroup shared = new MultiThreadIoEventLoopGroup(2, IoUringIoHandler.newFactory());
        try {
            RingPool pool = RingPool.adopt(shared, RingPoolConfig.builder().name("adopted").build());
            assertEquals(Transport.IO_URING, pool.getMetrics().transport());
            assertEquals(2, pool.getRings().size());
            Path p = dir.resolve("a.txt");
            Files.writeString(p, "shared loops");
            RingFile f = await(pool.openAsync(p));
            ByteBuffer b = ByteBuffer.allocate(32);
            assertEquals(12, await(f.readFullyAsync(b, 0)));
            pool.shutdown(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
            assertTrue(f.isClosed(), "shutdown closed the pool's files");
            assertFalse(shared.isShuttingDown(), "an adopted group is not ours to stop");
            shared.next().submit(() -> { }).get(30, TimeUnit.SECONDS);
        } finally {
            shared.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }

    @Test
    void adoptedNioLoopsUseTheFallbackEngine() throws Exception {
        MultiThreadIoEventLoopGroup nio = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try {
            RingPool pool = RingPool.adopt(nio, RingPoolConfig.builder().name("adopted-nio").build());
            assertEquals(Transport.FALLBACK, pool.getMetrics().transport());
            assertTrue(pool.getMetrics().fallbackReason().contains("not io_uring"), pool.getMetrics().fallbackReason());
            Path p = dir.resolve("b.txt");
            RingFile f = await(pool.openAsync(p, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE));
            assertEquals(3, await(f.writeAsync(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0)));
            pool.shutdown().get(30, TimeUnit.SECONDS);
            assertFalse(nio.isShuttingDown());
            assertThrows(IllegalArgumentException.class, () -> RingPoolConfig.builder().ringSize(1000));
            assertThrows(IllegalArgumentException.class, () -> RingPoolConfig.builder().rings(0));
        } finally {
            nio.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
