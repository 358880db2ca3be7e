package dev.corobridge.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.FileOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Closing a file ends the operations still in flight on it, on both engines, before the close
 * completes: a read waiting on a pipe fails with {@code EBADF} ("closed while the operation ran"),
 * and nothing lands in its buffer afterwards. On io_uring the read stayed in
 * the kernel after {@code close()} returned (the kernel holds its own reference to the file), and
 * bytes a later writer sent to the pipe landed in the buffer. The fallback failed it so, but its
 * close could complete before the read's failure was settled.
 */
class CloseWithOperationInFlightTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aReadInFlightEndsWithTheCloseAndLeavesTheBufferAlone(Transport transport) throws Exception {
        RingPool pool = RingTestSupport.pool(transport);
        try {
            Path fifo = RingTestSupport.fifo(dir, "pipe");
            ByteBuffer buf = ByteBuffer.allocateDirect(16);
            // Several rounds: on the fallback the blocked read and the close end on two file
            // threads, and their order at the loop varies from round to round.
            for (int round = 0; round < 20; round++) {
                RingOp<Integer> read;
                try (RingFile file = RingTestSupport.await(pool.openAsync(fifo, StandardOpenOption.READ, StandardOpenOption.WRITE))) {
                    read = file.readAsync(buf, 0);
                    // In flight, and ahead of the close: a ring takes a file's operations in call order.
                    RingTestSupport.waitUntil(() -> pool.getMetrics().inFlight() >= 1, "the read is in flight");
                }
                assertTrue(read.isDone(), "round " + round + ": the read ended before the close completed: " + read.outcomeOrNull());
                RingIoException e = assertInstanceOf(RingIoException.class, read.outcomeOrNull().errorOrNull(),
                        String.valueOf(read.outcomeOrNull()));
                assertEquals("EBADF", e.errnoName());
            }

            // A writer that comes later reaches nothing of the closed file's.
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try (FileOutputStream out = new FileOutputStream(fifo.toFile())) {
                    out.write("LATE".getBytes(StandardCharsets.US_ASCII));
                } catch (java.io.IOException ignored) {
                    // no reader: the write fails, as it should
                }
            });
            try (RingFile drain = RingTestSupport.await(pool.openAsync(fifo, StandardOpenOption.READ))) {
                RingTestSupport.await(drain.readAsync(ByteBuffer.allocate(16), 0));
            }
            writer.get(30, TimeUnit.SECONDS);
            assertEquals(0, buf.position(), "nothing landed in the closed file's buffer");
            assertEquals(0, buf.get(0));
        } finally {
            RingTestSupport.stop(pool);
        }
    }
}
