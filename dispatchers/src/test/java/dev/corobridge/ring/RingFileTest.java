package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.pool;
import static dev.corobridge.ring.RingTestSupport.stop;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** File operations from Java, on io_uring and on the fallback alike. */
@SuppressWarnings("deprecation")
class RingFileTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void writeSyncReadSizeCloseRoundTrip(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            assertEquals(transport, pool.getMetrics().transport());
            Path p = dir.resolve("round-trip.bin");
            RingFile f = await(pool.openAsync(p, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE));
            byte[] data = "hello ring".getBytes(StandardCharsets.UTF_8);
            assertEquals(data.length, await(f.writeAsync(ByteBuffer.wrap(data), 0)));            // heap buffer
            ByteBuffer direct = ByteBuffer.allocateDirect(6).put("!tail!".getBytes(StandardCharsets.UTF_8)).flip();
            assertEquals(6, await(f.writeFullyAsync(direct, data.length)));                       // direct buffer
            assertFalse(direct.hasRemaining());
            await(f.fdatasyncAsync());
            await(f.fsyncAsync());
            assertEquals(data.length + 6L, await(f.sizeAsync()));
            ByteBuffer back = ByteBuffer.allocate(64);
            assertEquals(16, await(f.readFullyAsync(back, 0)));
            assertEquals("hello ring!tail!", new String(back.array(), 0, 16, StandardCharsets.UTF_8));
            assertEquals(-1, await(f.readAsync(ByteBuffer.allocate(8), 1_000)), "end of file");
            ByteBuffer directBack = ByteBuffer.allocateDirect(5);
            assertEquals(5, await(f.readAsync(directBack, 6)));
            directBack.flip();
            byte[] five = new byte[5];
            directBack.get(five);
            assertEquals("ring!", new String(five, StandardCharsets.UTF_8));
            await(f.closeAsync());
            assertTrue(f.isClosed());
            await(f.closeAsync()); // twice is fine
            assertEquals("hello ring!tail!", Files.readString(p));
            assertEquals(0, pool.getMetrics().openFiles());
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void concurrentAppendsNeverInterleave(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            Path p = dir.resolve("journal.log");
            RingFile f = await(pool.openAsync(p, StandardOpenOption.CREATE, StandardOpenOption.APPEND));
            List<RingOp<Integer>> ops = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                ops.add(f.appendAsync(ByteBuffer.wrap(String.format("record-%04d\n", i).getBytes(StandardCharsets.US_ASCII))));
            }
            for (RingOp<Integer> op : ops) {
                assertEquals(12, await(op));
            }
            await(f.fdatasyncAsync());
            await(f.closeAsync());
            List<String> lines = Files.readAllLines(p);
            assertEquals(500, lines.size());
            assertEquals(500, new HashSet<>(lines).size());
            assertTrue(lines.stream().allMatch(l -> l.matches("record-\\d{4}")));
            RingFile ro = await(pool.openAsync(p));
            assertThrows(IllegalStateException.class, () -> ro.appendAsync(ByteBuffer.allocate(1)));
            await(ro.closeAsync());
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void errorsAreTypedWithErrnoAndPathAndLeakNothing(Transport transport) throws Exception {
        long fdsBefore = RingTestSupport.openFds();
        RingPool pool = pool(transport);
        try {
            Path missing = dir.resolve("no-such-file");
            RingIoException e = ioError(pool.openAsync(missing));
            assertEquals("ENOENT", e.errnoName());
            assertEquals(2, e.errno());
            assertEquals("open", e.operation());
            assertTrue(e.getMessage().contains(missing.toString()), e.getMessage());

            Path p = dir.resolve("read-only.txt");
            Files.writeString(p, "data");
            RingFile ro = await(pool.openAsync(p, StandardOpenOption.READ));
            RingIoException w = ioError(ro.writeAsync(ByteBuffer.wrap(new byte[] {1}), 0));
            assertEquals("EBADF", w.errnoName(), "write to a file opened read-only");
            assertEquals("write", w.operation());
            await(ro.closeAsync());
            RingIoException closed = ioError(ro.readAsync(ByteBuffer.allocate(4), 0));
            assertEquals("EBADF", closed.errnoName(), "operation on a closed file");

            RingIoException exists = ioError(pool.openAsync(p, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW));
            assertEquals("EEXIST", exists.errnoName());
            RingIoException isDir = ioError(pool.openAsync(dir, StandardOpenOption.WRITE));
            assertEquals("EISDIR", isDir.errnoName());

            RingFile rw = await(pool.openAsync(p, StandardOpenOption.READ));
            assertThrows(IllegalArgumentException.class, () -> rw.readAsync(ByteBuffer.allocate(1), -1));
            assertThrows(IllegalArgumentException.class, () -> rw.readAsync(ByteBuffer.allocate(1).asReadOnlyBuffer(), 0));
            assertThrows(NullPointerException.class, () -> rw.readAsync(null, 0));
            await(rw.closeAsync());
            assertThrows(IllegalArgumentException.class, () -> pool.openAsync(Path.of("bad\0name")));
            assertThrows(UnsupportedOperationException.class, () -> pool.openAsync(p, StandardOpenOption.DELETE_ON_CLOSE));
            assertThrows(IllegalArgumentException.class, () -> pool.openAsync(p, StandardOpenOption.APPEND, StandardOpenOption.READ));
            assertTrue(pool.getMetrics().errors().getOrDefault("ENOENT", 0L) >= 1, pool.getMetrics().toString());
        } finally {
            stop(pool);
        }
        RingTestSupport.waitUntil(() -> {
            try {
                return RingTestSupport.openFds() <= fdsBefore;
            } catch (java.io.IOException ex) {
                return false;
            }
        }, "fds back to " + fdsBefore);
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void operationsDepartAtCallTimeTwoReadsReallyOverlap(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            Path a = RingTestSupport.fifo(dir, "a.fifo");
            Path b = RingTestSupport.fifo(dir, "b.fifo");
            Ring ring = pool.getRings().get(0);
            // O_RDWR on a FIFO opens without waiting for a writer (Linux).
            RingFile fa = await(ring.openAsync(a, StandardOpenOption.READ, StandardOpenOption.WRITE));
            RingFile fb = await(ring.openAsync(b, StandardOpenOption.READ, StandardOpenOption.WRITE));
            ByteBuffer ba = ByteBuffer.allocateDirect(16);
            ByteBuffer bb = ByteBuffer.allocateDirect(16);
            RingOp<Integer> ra = fa.readAsync(ba, 0);   // departs now, blocks in the kernel: no data yet
            RingOp<Integer> rb = fb.readAsync(bb, 0);   // also departs now
            RingTestSupport.waitUntil(() -> ring.getInFlight() == 2, "both reads in flight");
            assertFalse(ra.isDone());
            assertFalse(rb.isDone());
            // Feed the SECOND pipe first: its read completes while the first is still in flight.
            try (RandomAccessFile w = new RandomAccessFile(b.toFile(), "rw")) {
                w.write("second".getBytes(StandardCharsets.US_ASCII));
            }
            assertEquals(6, await(rb));
            assertFalse(ra.isDone(), "the first read is still in flight: both were in the kernel together");
            try (RandomAccessFile w = new RandomAccessFile(a.toFile(), "rw")) {
                w.write("first".getBytes(StandardCharsets.US_ASCII));
            }
            assertEquals(5, await(ra));
            await(fa.closeAsync());
            await(fb.closeAsync());
        } finally {
            stop(pool);
        }
    }

    // Cancellation, in every state an operation can be in: RingOpCancelTest.

    @ParameterizedTest
    @EnumSource(Transport.class)
    void placement(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            assertEquals(2, pool.getRings().size());
            Ring first = pool.next();
            Ring second = pool.next();
            assertNotSame(first, second);
            assertSame(first, pool.next());
            Set<Ring> sticky = new HashSet<>();
            for (int i = 0; i < 100; i++) {
                sticky.add(pool.forKey("journal"));
            }
            assertEquals(1, sticky.size());
            assertSame(pool.getRings().get(0), pool.leastLoaded());
            Path p = dir.resolve("placed");
            Files.writeString(p, "x");
            RingFile f = await(pool.openAsync(p));
            assertSame(pool.forKey(p.toAbsolutePath().normalize()), f.getRing(), "files are placed by path");
            await(f.closeAsync());
            assertTrue(pool.getRings().get(0).getName().startsWith("test-"), pool.getRings().get(0).getName());
        } finally {
            stop(pool);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void shutdownResumesEveryAwaiterAndClosesEveryFd(Transport transport) throws Exception {
        long fdsBefore = RingTestSupport.openFds();
        RingPool pool = pool(transport);
        Path a = RingTestSupport.fifo(dir, "s.fifo");
        RingFile f = await(pool.openAsync(a, StandardOpenOption.READ, StandardOpenOption.WRITE));
        Path plain = dir.resolve("left-open");
        Files.writeString(plain, "x");
        RingFile leftOpen = await(pool.openAsync(plain));
        RingOp<Integer> pending = f.readAsync(ByteBuffer.allocateDirect(8), 0);
        RingTestSupport.waitUntil(pending::started, "read in flight");
        // io_uring: the kernel cancels the read in phase 1. Fallback: a blocking read cannot be
        // cancelled; phase 2 closes its file after the grace period, which ends the call.
        var done = pool.shutdown(java.time.Duration.ofMillis(transport == Transport.FALLBACK ? 200 : 5_000));
        Throwable outcome;
        try {
            await(pending);
            outcome = null;
        } catch (Exception ex) {
            outcome = ex;
        }
        assertInstanceOf(dev.corobridge.bridge.ContextShutdownException.class, outcome, String.valueOf(outcome));
        done.get(60, java.util.concurrent.TimeUnit.SECONDS); // clean: nothing left behind
        assertTrue(pool.isTerminated());
        assertTrue(pool.awaitTermination(java.time.Duration.ZERO));
        RingOp<RingFile> late = pool.openAsync(plain);
        assertInstanceOf(dev.corobridge.bridge.ContextShutdownException.class, late.outcomeOrNull().errorOrNull());
        assertTrue(leftOpen.getRing().getPool().getMetrics().openFiles() == 0);
        RingTestSupport.waitUntil(() -> {
            try {
                return RingTestSupport.openFds() <= fdsBefore;
            } catch (java.io.IOException ex) {
                return false;
            }
        }, "every fd closed (before: " + fdsBefore + ")");
    }

    private static RingIoException ioError(RingOp<?> op) {
        Exception e = assertThrows(Exception.class, () -> await(op));
        Throwable c = e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
        return assertInstanceOf(RingIoException.class, c, String.valueOf(e));
    }
}
