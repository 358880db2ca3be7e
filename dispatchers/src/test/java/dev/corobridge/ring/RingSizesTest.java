package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every ring size the configuration takes (a power of two, 16..32768) starts an io_uring pool that
 * works. Sizes above 4096 failed at start on io_uring: Netty's completion queue kept its default
 * size, and Netty refuses a completion queue smaller than the submission queue ("cqSize must be
 * greater than or equal to ringSize"). The fallback transport has no rings, so its tests never met it.
 */
@SuppressWarnings("deprecation")
class RingSizesTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(ints = {16, 4096, 8192, 16384, 32768})
    void everyConfiguredSizeStartsAWorkingPool(int size) throws Exception {
        RingPool pool = RingPool.start(RingPoolConfig.builder().name("size-" + size).rings(1).ringSize(size)
                .shutdownGracePeriod(Duration.ofSeconds(5)).build());
        try {
            assertEquals(Transport.IO_URING, pool.getMetrics().transport(), "this machine runs io_uring: " + pool.getMetrics());
            RingFile f = await(pool.openAsync(dir.resolve("f" + size), StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE));
            byte[] data = ("ring of " + size).getBytes(StandardCharsets.UTF_8);
            assertEquals(data.length, await(f.writeFullyAsync(ByteBuffer.wrap(data), 0)));
            ByteBuffer back = ByteBuffer.allocate(data.length);
            assertEquals(data.length, await(f.readFullyAsync(back, 0)));
            assertEquals("ring of " + size, new String(back.array(), StandardCharsets.UTF_8));
            await(f.closeAsync());
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS);
        }
        assertTrue(pool.isTerminated());
    }
}
