package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12, item 3: a write must never land in another file through a reused descriptor number.
 *
 * <p>{@link #FILES} files, each with its own tag byte, are closed and reopened over and over by
 * closer threads, which right after each close open another of the files outside the pool (a
 * plain {@code FileChannel}: it takes the number just freed), while writer threads write blocks of
 * a file's tag to whatever instance of that file is current, racing the closes. A write may succeed or fail
 * with {@code EBADF} (its file was closed first); afterwards every byte of every file must be
 * either 0 (never written) or the file's own tag.
 */
@SuppressWarnings("deprecation")
class RingFileDescriptorReuseTest {

    private static final int FILES = 8;
    private static final int WRITERS = 3;
    private static final int CLOSERS = 2;           // each owns the files i with i % CLOSERS == its index
    private static final int WRITES_PER_WRITER = 2_000;
    private static final int WINDOW = 4;                // writes in flight per writer
    private static final int BLOCK = 256 * 1024;        // copied at call time: the call takes a while
    private static final int BLOCKS_PER_FILE = 4;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void writesNeverLandInAFileThatReusedTheirDescriptor(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        Path[] paths = new Path[FILES];
        AtomicReferenceArray<RingFile> current = new AtomicReferenceArray<>(FILES);
        AtomicInteger succeeded = new AtomicInteger();
        AtomicInteger closedFirst = new AtomicInteger();
        AtomicInteger reopened = new AtomicInteger();
        ExecutorService threads = Executors.newFixedThreadPool(WRITERS + CLOSERS);
        try {
            for (int i = 0; i < FILES; i++) {
                paths[i] = Files.createFile(dir.resolve("f" + i));
                current.set(i, await(openOn(pool, i, paths[i])));
            }
            CountDownLatch writersDone = new CountDownLatch(WRITERS);
            List<Future<?>> work = new ArrayList<>();
            for (int w = 0; w < WRITERS; w++) {
                SplittableRandom rnd = new SplittableRandom(1000 + w);
                work.add(threads.submit(() -> {
                    try {
                        ArrayDeque<RingOp<Integer>> window = new ArrayDeque<>();
                        for (int n = 0; n < WRITES_PER_WRITER; n++) {
                            int i = rnd.nextInt(FILES);
                            byte[] block = new byte[BLOCK];
                            java.util.Arrays.fill(block, tag(i));
                            long position = (long) rnd.nextInt(BLOCKS_PER_FILE) * BLOCK;
                            window.add(current.get(i).writeAsync(ByteBuffer.wrap(block), position));
                            if (window.size() >= WINDOW) {
                                settle(window.poll(), succeeded, closedFirst);
                            }
                        }
                        while (!window.isEmpty()) {
                            settle(window.poll(), succeeded, closedFirst);
                        }
                    } finally {
                        writersDone.countDown();
                    }
                    return null;
                }));
            }
            for (int c = 0; c < CLOSERS; c++) {
                int closer = c;
                SplittableRandom rnd = new SplittableRandom(2000 + c);
                work.add(threads.submit(() -> {
                    FileChannel held = null;
                    try {
                        while (writersDone.getCount() > 0) {
                            // Close one of this closer's files, then at once open ANOTHER file
                            // outside the pool: it takes the lowest free number, very likely the one
                            // just freed (the "an open elsewhere that reuses the number").
                            int i = closer + CLOSERS * rnd.nextInt(FILES / CLOSERS);
                            await(current.get(i).closeAsync());
                            FileChannel foreign = FileChannel.open(paths[(i + 1 + rnd.nextInt(FILES - 1)) % FILES],
                                    StandardOpenOption.WRITE);
                            if (held != null) {
                                held.close();
                            }
                            held = foreign;
                            current.set(i, await(openOn(pool, rnd.nextInt(2), paths[i])));
                            reopened.incrementAndGet();
                        }
                    } finally {
                        if (held != null) {
                            held.close();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : work) {
                f.get(5, TimeUnit.MINUTES);
            }
            for (int i = 0; i < FILES; i++) {
                await(current.get(i).closeAsync());
            }
        } finally {
            threads.shutdownNow();
            stop(pool);
        }
        for (int i = 0; i < FILES; i++) {
            byte[] content = Files.readAllBytes(paths[i]);
            for (int k = 0; k < content.length; k++) {
                if (content[k] != 0 && content[k] != tag(i)) {
                    throw new AssertionError("byte " + k + " of " + paths[i].getFileName() + " is '" + (char) content[k]
                            + "', written for file f" + (content[k] - 'A') + ": a write went through a reused descriptor ("
                            + succeeded + " writes succeeded, " + closedFirst + " found their file closed, "
                            + reopened + " reopens)");
                }
            }
        }
        assertEquals(WRITERS * WRITES_PER_WRITER, succeeded.get() + closedFirst.get());
        assertTrue(reopened.get() >= 100, "too few reopens to race with: " + reopened);
        assertTrue(closedFirst.get() > 0, "no write ever raced a close: the storm exercised nothing");
    }

    /**
     * The same race made certain: the writer is held after {@code write} checked that the file is
     * open and before the write reaches the ring; meanwhile the file is closed and its number taken
     * by another file. Released, the write must fail with {@code EBADF}, not land in the other file.
     */
    @org.junit.jupiter.api.Test
    void aWriteThatReachesTheRingAfterItsFileClosedFailsAndTouchesNoOtherFile() throws Exception {
        NettyUringSettings.apply(); // the pausing group creates io_uring loops before any RingPool does
        try (PausingLoopGroup loops = new PausingLoopGroup()) {
            RingPool pool = RingPool.adopt(loops.group(), RingPoolConfig.builder().name("reuse").build());
            assertEquals(Transport.IO_URING, pool.getMetrics().transport());
            Path mine = Files.createFile(dir.resolve("mine"));
            Path other = Files.createFile(dir.resolve("other"));
            RingFile f = await(pool.openAsync(mine, StandardOpenOption.WRITE));
            java.util.concurrent.CompletableFuture<RingOp<Integer>> write = new java.util.concurrent.CompletableFuture<>();
            Thread writer = new Thread(() -> write.complete(f.writeAsync(ByteBuffer.wrap(new byte[] {'m', 'i', 'n', 'e'}), 0)));
            loops.holdNextExecuteOn(writer);
            writer.start();
            loops.awaitHeld(); // write() has checked "open" and is about to hand the write to the ring
            await(f.closeAsync());
            List<FileChannel> others = new ArrayList<>();
            try {
                // Another file takes the number just freed (the lowest free one: normally at the first try).
                Path fd = Path.of("/proc/self/fd/" + f.fd);
                while (!Files.exists(fd, java.nio.file.LinkOption.NOFOLLOW_LINKS) || !Files.readSymbolicLink(fd).equals(other)) {
                    assertTrue(others.size() < 256, "no open took the closed file's number " + f.fd);
                    others.add(FileChannel.open(other, StandardOpenOption.WRITE));
                }
                loops.release();
                RingOp<Integer> op = write.get(30, TimeUnit.SECONDS);
                try {
                    await(op);
                } catch (Exception e) {
                    // inspected below
                }
                assertEquals("", Files.readString(other), "the write landed in the file that reused its number");
                RingIoException e = org.junit.jupiter.api.Assertions.assertInstanceOf(RingIoException.class,
                        op.outcomeOrNull().errorOrNull(), String.valueOf(op.outcomeOrNull()));
                assertEquals(Errno.EBADF, e.errno());
                assertTrue(e.getMessage().contains("closed"), e.getMessage());
            } finally {
                for (FileChannel c : others) {
                    c.close();
                }
                pool.shutdown().get(30, TimeUnit.SECONDS);
            }
            assertEquals("", Files.readString(mine), "closed before the write reached the ring");
        }
    }

    private static RingOp<RingFile> openOn(RingPool pool, int ring, Path path) {
        return pool.getRings().get(ring % pool.getRings().size()).openAsync(path, StandardOpenOption.WRITE);
    }

    private static byte tag(int file) {
        return (byte) ('A' + file);
    }

    /** A write ends written or with EBADF (its file was closed before it ran); nothing else. */
    private static void settle(RingOp<Integer> op, AtomicInteger succeeded, AtomicInteger closedFirst) throws Exception {
        try {
            await(op);
        } catch (Exception e) {
            // inspected below
        }
        Outcome<Integer> o = op.outcomeOrNull();
        if (o instanceof Outcome.Success<Integer> s) {
            assertEquals(BLOCK, s.value());
            succeeded.incrementAndGet();
        } else if (o != null && o.errorOrNull() instanceof RingIoException e && e.errno() == Errno.EBADF) {
            closedFirst.incrementAndGet();
        } else {
            throw new AssertionError("a write ended with " + o, o == null ? null : o.errorOrNull());
        }
    }
}
