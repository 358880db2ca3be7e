package dev.corobridge.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link RingMetrics#completions()} counts every file operation that ended, whatever its outcome
 * ("completed (any outcome)"): also those that end without reaching the kernel or a file thread —
 * refused by a full fallback queue ({@code EAGAIN}), issued on a file whose close was taken in
 * ({@code EBADF}). With nothing in flight, completions equal the operations submitted.
 */
class RingCompletionsCountTest {

    @TempDir
    Path dir;

    private static long submitted(RingMetrics m) {
        return m.operations().values().stream().mapToLong(Long::longValue).sum();
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void operationsOnAClosedFileAreCountedAsCompleted(Transport transport) throws Exception {
        RingPool pool = RingTestSupport.pool(transport);
        try {
            Path path = Files.writeString(dir.resolve("f"), "abc");
            RingFile file = RingTestSupport.await(pool.openAsync(path, StandardOpenOption.READ));
            RingOp<Void> close = file.closeAsync();
            List<RingOp<Integer>> reads = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                reads.add(file.readAsync(ByteBuffer.allocate(1), 0)); // after the close: EBADF
            }
            RingTestSupport.await(close);
            for (RingOp<Integer> r : reads) {
                RingTestSupport.waitUntil(r::isDone, "the read after the close");
            }
            RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() == 0, "nothing in flight");
            RingMetrics m = pool.getMetrics();
            assertEquals(12, submitted(m), m.toString());
            assertEquals(submitted(m), m.completions(), "every operation ended, nothing in flight: " + m);
        } finally {
            RingTestSupport.stop(pool);
        }
    }

    @org.junit.jupiter.api.Test
    void operationsRefusedByAFullFallbackQueueAreCountedAsCompleted() throws Exception {
        RingPool pool = RingPool.start(RingPoolConfig.builder().name("count-refused").rings(1).forceFallback(true)
                .fallbackFileThreads(1).fallbackQueueCapacity(1).shutdownGracePeriod(Duration.ofSeconds(5)).build());
        try {
            RingFile file = RingTestSupport.await(pool.openAsync(dir.resolve("w"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE));
            List<RingOp<Integer>> writes = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                writes.add(file.writeAsync(ByteBuffer.wrap(new byte[4096]), (long) i * 4096));
            }
            for (RingOp<Integer> w : writes) {
                RingTestSupport.waitUntil(w::isDone, "the write");
            }
            RingTestSupport.await(file.closeAsync());
            RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() == 0, "nothing in flight");
            RingMetrics m = pool.getMetrics();
            assertTrue(m.errors().getOrDefault("EAGAIN", 0L) > 0, "precondition: some writes were refused: " + m);
            assertEquals(submitted(m), m.completions(), "every operation ended, nothing in flight: " + m);
        } finally {
            RingTestSupport.stop(pool);
        }
    }
}
