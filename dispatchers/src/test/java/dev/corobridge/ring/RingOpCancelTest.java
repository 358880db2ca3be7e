package dev.corobridge.ring;

import static dev.corobridge.ring.RingTestSupport.await;
import static dev.corobridge.ring.RingTestSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.corobridge.bridge.Outcome;
import java.io.RandomAccessFile;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 12, item 7: {@link RingOp#cancel()} returns {@code true} if and only if that call decided the
 * outcome (as {@link dev.corobridge.bridge.Awaitable#cancel()} promises), for every place an
 * operation can be: not started, started but undoable, in the kernel's hands, already decided.
 *
 * <p>"Not started" is staged without timing: on io_uring the ring's thread is held in a task, so an
 * operation called meanwhile waits in the loop's queue; on the fallback the single file thread is
 * held by a read on an empty pipe.
 */
@SuppressWarnings("deprecation")
class RingOpCancelTest {

    private static final InetSocketAddress ANY_LOOPBACK = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @TempDir
    Path dir;

    private static RingPool pool(Transport t) {
        return RingPool.start(RingPoolConfig.builder().name("cancel-" + t.name().toLowerCase().replace('_', '-'))
                .rings(1).forceFallback(t == Transport.FALLBACK).fallbackFileThreads(1)
                .shutdownGracePeriod(Duration.ofSeconds(5)).build());
    }

    /** Keeps the pool from starting anything new until closed (see the class comment). */
    private final class Hold implements AutoCloseable {
        private final CountDownLatch released = new CountDownLatch(1);
        private Path pipe;

        Hold(RingPool pool) throws Exception {
            Ring ring = pool.getRings().get(0);
            if (pool.getMetrics().transport() == Transport.IO_URING) {
                CountDownLatch entered = new CountDownLatch(1);
                ring.execute(() -> {
                    entered.countDown();
                    try {
                        released.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                assertTrue(entered.await(30, TimeUnit.SECONDS));
            } else {
                pipe = RingTestSupport.fifo(dir, "hold-" + System.nanoTime());
                RingFile p = await(ring.openAsync(pipe, StandardOpenOption.READ, StandardOpenOption.WRITE));
                RingOp<Integer> blocker = p.readAsync(ByteBuffer.allocate(1), 0);
                waitUntil(blocker::started, "the file thread to be busy with the blocking read");
                blocker.onComplete(o -> p.closeAsync());
            }
        }

        @Override
        public void close() throws Exception {
            released.countDown();
            if (pipe != null) {
                try (RandomAccessFile w = new RandomAccessFile(pipe.toFile(), "rw")) {
                    w.write(1);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancelBeforeTheOperationStartsDecidesAtOnceAndItNeverRuns(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            Path p = dir.resolve("never-written");
            RingFile f = await(pool.openAsync(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.READ));
            RingOp<Integer> write;
            try (Hold hold = new Hold(pool)) {
                Ring ring = pool.getRings().get(0);
                int inFlightBefore = ring.getInFlight();
                write = f.writeAsync(ByteBuffer.wrap("never".getBytes(StandardCharsets.US_ASCII)), 0);
                assertEquals(inFlightBefore + 1, ring.getInFlight());
                assertFalse(write.started());
                assertTrue(write.cancel(), "nothing started yet: this call decides");
                assertTrue(write.isDone(), "decided by the call that returned true");
                assertTrue(write.outcomeOrNull().isCancelled(), String.valueOf(write.outcomeOrNull()));
                // Counted out when it was decided, not when the held ring gets to it: nothing of it is in flight.
                assertEquals(inFlightBefore, ring.getInFlight(), "a withdrawn operation still counted in flight");
                assertEquals(inFlightBefore, pool.getMetrics().inFlight());
                assertFalse(write.cancel(), "a second call decides nothing");
            }
            assertThrows(CancellationException.class, () -> await(write));
            await(f.fsyncAsync()); // queued behind the cancelled write: once done, the write's turn has passed
            assertEquals(0L, await(f.sizeAsync()), "the cancelled write never ran");
            await(f.closeAsync());
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancelInTheKernelOnlyAsksAndTheKernelDecides(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            Path fifo = RingTestSupport.fifo(dir, "k.fifo");
            RingFile f = await(pool.openAsync(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
            ByteBuffer buf = ByteBuffer.allocateDirect(8);
            RingOp<Integer> read = f.readAsync(buf, 0);
            waitUntil(read::started, "the read to be in the kernel's hands");
            assertFalse(read.cancel(), "the kernel holds the buffer: it decides, not this call");
            assertTrue(read.isCancelRequested());
            assertFalse(read.cancel());
            if (transport == Transport.IO_URING) {
                // IORING_OP_ASYNC_CANCEL stops a read waiting on an empty pipe.
                assertThrows(CancellationException.class, () -> await(read));
            } else {
                // A running blocking read cannot be stopped: it ends with its real result, nothing lost.
                try (RandomAccessFile w = new RandomAccessFile(fifo.toFile(), "rw")) {
                    w.write('x');
                }
                assertEquals(1, await(read));
                assertEquals('x', buf.get(0));
            }
            await(f.closeAsync());
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancelAfterTheOutcomeChangesNothing(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            RingFile f = await(pool.openAsync(dir.resolve("done"), StandardOpenOption.CREATE, StandardOpenOption.WRITE));
            RingOp<Integer> write = f.writeAsync(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0);
            assertEquals(3, await(write));
            assertFalse(write.cancel());
            assertFalse(write.isCancelRequested(), "a decided operation does not even record the request");
            assertEquals(3, write.resultNow());
            RingOp<Void> close = f.closeAsync();
            assertFalse(close.cancel(), "a close cannot be cancelled (it would leak the fd)");
            await(close);
            assertTrue(close.outcomeOrNull().isSuccess());
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void cancellingAnOpenDecidesAtOnceAndAFileOpenedAnywayIsClosed(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            Ring ring = pool.getRings().get(0);
            Path target;
            RingOp<RingFile> open;
            long fdsBefore;
            if (transport == Transport.IO_URING) {
                target = Files.writeString(dir.resolve("plain"), "x");
                fdsBefore = RingTestSupport.openFds();
                // Issue the open on the ring's thread, and hold the thread in that same task: the open
                // is started (its SQE written) and cannot be decided before the task returns.
                CountDownLatch released = new CountDownLatch(1);
                CompletableFuture<RingOp<RingFile>> issued = new CompletableFuture<>();
                ring.execute(() -> {
                    issued.complete(ring.openAsync(target));
                    try {
                        released.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                open = issued.get(30, TimeUnit.SECONDS);
                assertTrue(open.started());
                assertTrue(open.cancel(), "an open can be undone: this call decides");
                assertTrue(open.isDone());
                released.countDown();
            } else {
                // Opening a pipe for reading only blocks (in FileChannel.open) until a writer comes.
                target = RingTestSupport.fifo(dir, "o.fifo");
                fdsBefore = RingTestSupport.openFds();
                open = ring.openAsync(target, StandardOpenOption.READ);
                waitUntil(open::started, "the open to block in the kernel");
                assertTrue(open.cancel(), "an open can be undone: this call decides");
                assertTrue(open.isDone());
                // A writer: the open completes after all, and must be closed. The writer stays open
                // until the open has returned: `started` is set just before the file thread calls
                // open(2), and a writer that came and went before that call left the reader's open
                // blocked for good (a FIFO without writers), the file thread with it.
                try (RandomAccessFile w = new RandomAccessFile(target.toFile(), "rw")) {
                    w.write(1);
                    waitUntil(() -> pool.getMetrics().inFlight() == 0, "the open to return");
                }
            }
            assertTrue(open.outcomeOrNull().isCancelled(), String.valueOf(open.outcomeOrNull()));
            assertEquals(0, pool.getMetrics().openFiles(), "the file opened anyway was never handed out");
            waitUntil(() -> {
                try {
                    return pool.getMetrics().inFlight() == 0 && RingTestSupport.openFds() <= fdsBefore;
                } catch (java.io.IOException e) {
                    return false;
                }
            }, "the fd of the file opened anyway to be closed");
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void wholeTransfersFollowTheirCurrentPart(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        try {
            Path fifo = RingTestSupport.fifo(dir, "w.fifo");
            RingFile f = await(pool.openAsync(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE));
            RingOp<Integer> notStarted;
            try (Hold hold = new Hold(pool)) {
                notStarted = f.readFullyAsync(ByteBuffer.allocateDirect(4), 0);
                assertTrue(notStarted.cancel(), "its first part had not started: decided here");
                assertTrue(notStarted.outcomeOrNull().isCancelled());
            }
            if (transport == Transport.IO_URING) {
                RingOp<Integer> inKernel = f.readFullyAsync(ByteBuffer.allocateDirect(4), 0);
                passedBy(f.getRing()); // the ring has taken the first part in and written its SQE
                assertFalse(inKernel.cancel(), "its part is in the kernel: the kernel decides");
                assertThrows(CancellationException.class, () -> await(inKernel));
            }
            await(f.closeAsync());
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS);
        }
    }

    /** Returns once the ring's thread has run everything queued to it before this call. */
    private static void passedBy(Ring ring) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        ring.execute(done::countDown);
        assertTrue(done.await(30, TimeUnit.SECONDS));
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aSocketReadWaitingForDataIsWithdrawnAtOnceAndItsBytesGoToTheNextRead(Transport transport) throws Exception {
        RingPool pool = pool(transport);
        LinkedBlockingQueue<RingConnection> accepted = new LinkedBlockingQueue<>();
        try (RingServer server = await(pool.bindAsync(ANY_LOOPBACK, accepted::add))) {
            RingConnection client = await(pool.connectAsync(server.getLocalAddress()));
            RingConnection session = accepted.poll(30, TimeUnit.SECONDS);
            ByteBuffer first = ByteBuffer.allocate(16);
            RingOp<Integer> waiting = session.readAsync(first.clear());
            waitUntil(waiting::started, "the read to wait for data on the ring");
            assertTrue(waiting.cancel(), "nothing received yet: this call decides");
            assertTrue(waiting.isDone());
            assertInstanceOf(Outcome.Cancelled.class, waiting.outcomeOrNull());
            assertEquals(5, await(client.writeAsync(ByteBuffer.wrap("hello".getBytes(StandardCharsets.US_ASCII)), 5)));
            ByteBuffer second = ByteBuffer.allocate(16);
            assertEquals(5, await(session.readAsync(second.clear())), "the bytes went to the next read");
            assertEquals("hello", new String(second.array(), 0, 5, StandardCharsets.US_ASCII));
            assertEquals(0, first.get(0), "the withdrawn read's buffer was never written");
            await(client.closeAsync());
            await(session.closeAsync());
        } finally {
            pool.shutdown().get(60, TimeUnit.SECONDS);
        }
    }
}
