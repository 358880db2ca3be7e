package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * 10^4 random cancellations without use-after-free or leaks.
 *
 * <p>Reads wait on pipes (no data yet), each into its own direct buffer. Each is cancelled at a
 * random moment: before it reaches the ring (then decided at once), while it waits in the kernel
 * (the kernel decides), or never (those get data). As soon as a read's outcome is known its owner "reuses" the buffer: fills it with a
 * marker. Afterwards every pipe is flooded with data: if the kernel still held any buffer whose
 * owner had been told it was free, the flood would overwrite the marker. Every fd opened is closed
 * (counted in /proc/self/fd).
 */
@SuppressWarnings("deprecation")
class RingCancellationStressTest {

    private static final int OPS = 10_000;
    private static final int PIPES = 16;
    private static final int BUF = 32;
    private static final byte MARK = (byte) 0xA5;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void randomCancellationsTouchNoFreedBufferAndLeakNoFd(Transport transport) throws Exception {
        long fdsBefore = RingTestSupport.openFds();
        RingPool pool = pool(transport);
        SplittableRandom rnd = new SplittableRandom(4242);
        List<RingFile> pipes = new ArrayList<>();
        List<Path> paths = new ArrayList<>();
        int cancelled = 0;
        int completed = 0;
        int cancelRequests = 0;
        try {
            for (int i = 0; i < PIPES; i++) {
                Path p = RingTestSupport.fifo(dir, "p" + i);
                paths.add(p);
                pipes.add(await(pool.openAsync(p, StandardOpenOption.READ, StandardOpenOption.WRITE)));
            }
            int batch = transport == Transport.FALLBACK ? 8 : 200;
            List<ByteBuffer> freed = new ArrayList<>();
            for (int done = 0; done < OPS; done += batch) {
                List<RingOp<Integer>> ops = new ArrayList<>();
                List<ByteBuffer> bufs = new ArrayList<>();
                for (int i = 0; i < batch; i++) {
                    ByteBuffer b = ByteBuffer.allocateDirect(BUF);
                    bufs.add(b);
                    RingOp<Integer> op = pipes.get(rnd.nextInt(PIPES)).readAsync(b, 0);
                    ops.add(op);
                    if (rnd.nextInt(3) == 0) {
                        op.cancel(); // often before it reached the ring
                    }
                }
                if (rnd.nextBoolean()) {
                    LockSupport.parkNanos(rnd.nextInt(200_000)); // let some reach the kernel
                }
                for (RingOp<Integer> op : ops) {
                    if (!op.isDone()) {
                        op.cancel(); // true: withdrawn at once; false: the kernel decides
                    }
                }
                // Anything not cancelled in time (the fallback's running reads) gets data.
                feedUntilSettled(paths, ops);
                for (int i = 0; i < ops.size(); i++) {
                    if (ops.get(i).isCancelRequested()) {
                        cancelRequests++;
                    }
                    Outcome<Integer> o = ops.get(i).outcomeOrNull();
                    if (o.isCancelled()) {
                        cancelled++;
                    } else if (o.isSuccess()) {
                        completed++;
                    } else {
                        throw new AssertionError("unexpected outcome " + o);
                    }
                    ByteBuffer b = bufs.get(i);
                    for (int k = 0; k < BUF; k++) {
                        b.put(k, MARK); // the owner reuses the buffer now
                    }
                    freed.add(b);
                }
            }
            // Flood every pipe: a read still in the kernel would land in a freed buffer.
            for (Path p : paths) {
                try (RandomAccessFile w = new RandomAccessFile(p.toFile(), "rw")) {
                    w.write(new byte[4096]);
                }
            }
            // Operations withdrawn before they started leave the engine's queues a little after
            // their outcome was decided (they never touch their buffers).
            RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() == 0, "nothing in flight any more");
            for (ByteBuffer b : freed) {
                for (int k = 0; k < BUF; k++) {
                    if (b.get(k) != MARK) {
                        throw new AssertionError("a freed buffer was written after its owner got it back");
                    }
                }
            }
            for (RingFile f : pipes) {
                await(f.closeAsync());
            }
        } finally {
            stop(pool);
        }
        assertEquals(OPS, cancelled + completed);
        assertTrue(cancelRequests >= OPS / 3, "too few cancellations exercised: " + cancelRequests);
        assertTrue(cancelled >= OPS / 4, "too few operations ended cancelled: " + cancelled);
        RingTestSupport.waitUntil(() -> {
            try {
                return RingTestSupport.openFds() <= fdsBefore;
            } catch (java.io.IOException e) {
                return false;
            }
        }, "fds back to " + fdsBefore);
    }

    /**
     * Opens cancelled at random moments — before they reach the ring, while the kernel opens, never
     * — against the engine's undo: a cancel() that returned true always means a cancelled open whose
     * file (if it was opened anyway) is closed; every other open hands out a file. No fd is left.
     */
    @ParameterizedTest
    @EnumSource(Transport.class)
    void randomlyCancelledOpensLeakNoFd(Transport transport) throws Exception {
        Path plain = java.nio.file.Files.writeString(dir.resolve("opened-and-cancelled"), "x");
        long fdsBefore = RingTestSupport.openFds();
        RingPool pool = pool(transport);
        SplittableRandom rnd = new SplittableRandom(77);
        int decidedByCancel = 0;
        int opened = 0;
        try {
            for (int round = 0; round < 20; round++) {
                List<RingOp<RingFile>> ops = new ArrayList<>();
                List<Boolean> decided = new ArrayList<>();
                for (int i = 0; i < 100; i++) {
                    RingOp<RingFile> op = pool.openAsync(plain);
                    ops.add(op);
                    int when = rnd.nextInt(3);
                    for (int spin = when == 1 ? rnd.nextInt(2_000) : 0; spin > 0; spin--) {
                        Thread.onSpinWait(); // a moment later: the open may be in the kernel by now
                    }
                    decided.add(when < 2 && op.cancel());
                }
                for (int i = 0; i < ops.size(); i++) {
                    RingOp<RingFile> op = ops.get(i);
                    try {
                        await(op);
                    } catch (Exception e) {
                        // inspected below
                    }
                    Outcome<RingFile> o = op.outcomeOrNull();
                    if (decided.get(i)) {
                        decidedByCancel++;
                        assertTrue(o.isCancelled(), "cancel() said it decided, yet: " + o);
                    } else if (o.isSuccess()) {
                        opened++;
                        await(((Outcome.Success<RingFile>) o).value().closeAsync());
                    } else {
                        throw new AssertionError("an open cancel() did not decide ended " + o);
                    }
                }
            }
            RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() == 0, "every open settled in the engine");
            assertEquals(0, pool.getMetrics().openFiles(), "a file handed out to nobody is still open");
        } finally {
            stop(pool);
        }
        assertTrue(decidedByCancel > 0 && opened > 0, "cancelled " + decidedByCancel + ", opened " + opened);
        RingTestSupport.waitUntil(() -> {
            try {
                return RingTestSupport.openFds() <= fdsBefore;
            } catch (java.io.IOException e) {
                return false;
            }
        }, "fds back to " + fdsBefore);
    }

    /** Writes to the pipes until every op has an outcome (reads that were not cancelled need data). */
    private static void feedUntilSettled(List<Path> paths, List<RingOp<Integer>> ops) throws Exception {
        long deadline = System.nanoTime() + RingTestSupport.WAIT.toNanos();
        while (ops.stream().anyMatch(o -> !o.isDone())) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("operations never settled: " + ops.stream().filter(o -> !o.isDone()).count());
            }
            for (Path p : paths) {
                try (RandomAccessFile w = new RandomAccessFile(p.toFile(), "rw")) {
                    w.write(new byte[BUF]);
                }
            }
            LockSupport.parkNanos(200_000);
        }
    }
}
