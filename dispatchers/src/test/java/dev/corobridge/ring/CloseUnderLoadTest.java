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

    private static RingPool fallback(String name, int threads, int queue) {
        return RingPool.start(RingPoolConfig.builder().name(name).rings(1).forceFallback(true)
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

    /**
     * Whether {@code count} of the pool's file threads are inside a blocking read: their top frame
     * is the JDK's native read (an in-flight count alone says the call was taken, not that the
     * thread has entered it; a thread not yet in its read would leave a queue slot free).
     */
    private static boolean fileThreadsInReads(String pool, int count) {
        String prefix = pool + "-file-";
        int reading = 0;
        for (var thread : Thread.getAllStackTraces().entrySet()) {
            StackTraceElement[] stack = thread.getValue();
            if (thread.getKey().getName().startsWith(prefix) && stack.length > 0 && stack[0].isNativeMethod()
                    && stack[0].getMethodName().startsWith("read")) {
                reading++;
            }
        }
        return reading >= count;
    }

    private static void assertClosedUnder(RingOp<Integer> read) {
        assertTrue(read.isDone(), "the read ended before the close completed: " + read.outcomeOrNull());
        RingIoException e = assertInstanceOf(RingIoException.class, read.outcomeOrNull().errorOrNull(),
                String.valueOf(read.outcomeOrNull()));
        assertEquals("EBADF", e.errnoName());
    }

    @Test
    void onTheFallbackACloseCompletesWhileEveryFileThreadIsBlocked() throws Exception {
        RingPool pool = fallback("close-blocked", 2, 64);
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
            RingTestSupport.waitUntil(() -> fileThreadsInReads("close-blocked", 2), "both file threads inside their reads");

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
        RingPool pool = fallback("close-refused", 1, 1);
        try {
            Path fifo = RingTestSupport.fifo(dir, "pipe");
            RingFile blocking = RingTestSupport.await(pool.openAsync(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
            Path regular = Files.writeString(dir.resolve("regular"), "data");
            RingFile file = RingTestSupport.await(pool.openAsync(regular, StandardOpenOption.READ));
            RingOp<Integer> read = blocking.readAsync(ByteBuffer.allocateDirect(16), 0);
            RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() >= 1, "the read in flight");
            RingTestSupport.waitUntil(() -> fileThreadsInReads("close-refused", 1), "the only file thread inside the read");
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

    /**
     * On the fallback a close runs on a closer thread made for it; when the JVM cannot make one
     * ({@code OutOfMemoryError: unable to create native thread}, a process at its thread limit), the
     * close runs on its caller instead: the error escaped the call, and the close was never run nor
     * settled, its descriptor open and the operation counted in flight for good.
     */
    @Test
    void onTheFallbackACloseRunsWhenNoCloserThreadCanBeMade() throws Exception {
        RingPool pool = fallback("close-no-thread", 2, 64);
        try {
            Ring ring = pool.getRings().get(0);
            java.lang.reflect.Field closers = BlockingEngine.class.getDeclaredField("closers");
            closers.setAccessible(true);
            ((java.util.concurrent.ExecutorService) closers.get(ring.engine())).shutdown(); // never used: no thread
            closers.set(ring.engine(), new java.util.concurrent.ThreadPoolExecutor(0, 1, 1, java.util.concurrent.TimeUnit.SECONDS,
                    new java.util.concurrent.SynchronousQueue<>()) {
                @Override
                public void execute(Runnable command) { // what ThreadPoolExecutor throws when no thread can be started
                    throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource limits reached");
                }
            });
            Path regular = Files.writeString(dir.resolve("regular"), "data");
            RingFile file = RingTestSupport.await(ring.openAsync(regular, StandardOpenOption.READ));
            assertEquals(1, fdsOn(regular));

            RingTestSupport.await(file.closeAsync());
            assertEquals(0, fdsOn(regular), "the descriptor is closed");
            RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() == 0, "nothing in flight");
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
