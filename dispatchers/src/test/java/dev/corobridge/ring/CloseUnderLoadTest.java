package dev.corobridge.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file's close completes, and closes its descriptor, however loaded the engine is: on the
 * fallback when every file thread is blocked in a call (the close waited for a free file thread,
 * which only the close could free) or when their queue is full (the close was refused with
 * {@code EAGAIN} after the file had been marked closed and forgotten, so its descriptor stayed open
 * until the process ended, and a retry returned at once); on io_uring when more operations wait
 * than the ring has slots (the close waited behind operations that only the close would end).
 */
class CloseUnderLoadTest {

    @TempDir
    Path dir;

    private static RingPool fallback(int threads, int queue) {
        return RingPool.start(RingPoolConfig.builder().name("close-under-load").rings(1).forceFallback(true)
                .fallbackFileThreads(threads).fallbackQueueCapacity(queue).shutdownGracePeriod(Duration.ofSeconds(5)).build());
    }

    /** The descriptors of this process open on {@code path}. */
    private static long fdsOn(Path path) throws IOException {
        Path target = path.toRealPath();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(target);
                } catch (IOException gone) {
                    return false;
                }
            }).count();
        }
    }

    private static void assertClosedUnder(RingOp<Integer> read) {
        assertTrue(read.isDone(), "the read ended before the close completed: " + read.outcomeOrNull());
        RingIoException e = assertInstanceOf(RingIoException.class, read.outcomeOrNull().errorOrNull(),
                String.valueOf(read.outcomeOrNull()));
        assertEquals("EBADF", e.errnoName());
    }

    @Test
    void onTheFallbackACloseCompletesWhileEveryFileThreadIsBlocked() throws Exception {
        RingPool pool = fallback(2, 64);
        try {
            List<RingFile> files = new ArrayList<>();
            List<RingOp<Integer>> reads = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Path fifo = RingTestSupport.fifo(dir, "pipe" + i);
                RingFile f = RingTestSupport.await(pool.openAsync(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
                files.add(f);
                reads.add(f.readAsync(ByteBuffer.allocateDirect(16), 0));
            }
            RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() >= 2, "both reads in flight");
            Thread.sleep(50); // both file threads inside their reads

            RingTestSupport.await(files.get(0).closeAsync());
            assertClosedUnder(reads.get(0));
            assertFalse(reads.get(1).isDone(), "the other file's read goes on");
            files.get(1).close(); // the blocking close too
            assertClosedUnder(reads.get(1));
        } finally {
            RingTestSupport.stop(pool);
        }
    }

    @Test
    void onTheFallbackACloseIsNeverRefusedAndClosesTheDescriptor() throws Exception {
        RingPool pool = fallback(1, 1);
        try {
            Path fifo = RingTestSupport.fifo(dir, "pipe");
            RingFile blocking = RingTestSupport.await(pool.openAsync(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
            Path regular = Files.writeString(dir.resolve("regular"), "data");
            RingFile file = RingTestSupport.await(pool.openAsync(regular, StandardOpenOption.READ));
            RingOp<Integer> read = blocking.readAsync(ByteBuffer.allocateDirect(16), 0);
            RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() >= 1, "the read in flight");
            Thread.sleep(50); // the only file thread inside the read
            RingOp<Long> size = file.sizeAsync(); // fills the queue
            RingOp<Long> overflow = file.sizeAsync();
            RingTestSupport.waitUntil(overflow::isDone, "the size beyond the queue refused");
            RingIoException refused = assertInstanceOf(RingIoException.class, overflow.outcomeOrNull().errorOrNull(),
                    "the queue is full: " + overflow.outcomeOrNull());
            assertEquals("EAGAIN", refused.errnoName());
            assertEquals(1L, pool.getMetrics().errors().getOrDefault("EAGAIN", 0L), "a refusal counted: " + pool.getMetrics().errors());
            assertEquals(1, fdsOn(regular));

            RingOp<Void> closing = file.closeAsync();
            RingTestSupport.waitUntil(() -> {
                try {
                    return fdsOn(regular) == 0;
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, "the descriptor closed");
            // The close completes after the size taken in before it, which waits for the only file thread.
            assertFalse(closing.isDone(), "the close completed before the size taken in before it");

            RingTestSupport.await(blocking.closeAsync());
            assertClosedUnder(read);
            RingTestSupport.await(closing);
            assertTrue(size.isDone(), "the size taken in before the close has ended");
            assertEquals("EBADF", assertInstanceOf(RingIoException.class, size.outcomeOrNull().errorOrNull()).errnoName());
        } finally {
            RingTestSupport.stop(pool);
        }
    }

    @Test
    void onIoUringACloseCompletesWithMoreOperationsWaitingThanTheRingHasSlots() throws Exception {
        RingPool pool = RingPool.start(RingPoolConfig.builder().name("close-beyond-slots").rings(1)
                .shutdownGracePeriod(Duration.ofSeconds(5)).build());
        try {
            Path fifo = RingTestSupport.fifo(dir, "pipe");
            RingFile file = RingTestSupport.await(pool.openAsync(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
            int count = 33_000; // more than a ring's slots (32,767)
            List<RingOp<Integer>> reads = new ArrayList<>(count);
            ByteBuffer[] buffers = new ByteBuffer[count];
            for (int i = 0; i < count; i++) {
                buffers[i] = ByteBuffer.allocateDirect(1);
                reads.add(file.readAsync(buffers[i], 0));
            }
            RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() >= count, "the reads in flight");
            RingTestSupport.await(file.closeAsync());
            for (RingOp<Integer> r : reads) {
                assertClosedUnder(r);
            }
            assertEquals(0, pool.getMetrics().inFlight());
            assertFalse(pool.getMetrics().errors().containsKey("ECANCELED"),
                    "reads ended by the close are EBADF, not cancellations counted as errors: " + pool.getMetrics().errors());
        } finally {
            RingTestSupport.stop(pool);
        }
    }
}
