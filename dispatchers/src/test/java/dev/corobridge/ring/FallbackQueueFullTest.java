package dev.corobridge.ring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.corobridge.bridge.Outcome;

/**
 * The fallback's file threads refuse an operation when their queue is full
 * ({@code fallbackQueueCapacity}): an overload, not a shutdown. The refusal is a failure a caller
 * can tell and retry, {@link RingIoException} with {@code EAGAIN}; it was a cancellation with
 * {@code ContextShutdownException}, which a Java {@code catch (CancellationException)} and a Kotlin
 * coroutine took for a cancellation and dropped silently, while the pool ran on.
 */
class FallbackQueueFullTest {

    @TempDir
    Path dir;

    @Test
    void anOperationRefusedForAFullQueueFailsWithEagainAndThePoolRunsOn() throws Exception {
        RingPool pool = RingPool.start(RingPoolConfig.builder().name("queue-full").rings(1).forceFallback(true)
                .fallbackFileThreads(1).fallbackQueueCapacity(1).shutdownGracePeriod(Duration.ofSeconds(1)).build());
        try {
            RingFile blocking = RingTestSupport.await(pool.openAsync(RingTestSupport.fifo(dir, "pipe"),
                    StandardOpenOption.READ, StandardOpenOption.WRITE));
            Path plain = Files.writeString(dir.resolve("plain"), "abc");
            RingFile file = RingTestSupport.await(pool.openAsync(plain, StandardOpenOption.READ));
            blocking.readAsync(ByteBuffer.allocate(4), 0); // takes the only file thread, waits for a writer
            RingTestSupport.waitUntil(FallbackQueueFullTest::aFileThreadIsReading, "the blocking read is on the file thread");
            RingOp<Integer> queued = file.readAsync(ByteBuffer.allocate(1), 0);
            RingOp<Integer> refused = file.readAsync(ByteBuffer.allocate(1), 0);

            RingTestSupport.waitUntil(refused::isDone, "the refusal");
            Outcome<Integer> outcome = refused.outcomeOrNull();
            RingIoException e = assertInstanceOf(RingIoException.class, outcome.errorOrNull(), outcome.toString());
            assertEquals("EAGAIN", e.errnoName());
            assertTrue(e.getMessage().contains("fallbackQueueCapacity"), e.getMessage());
            assertFalse(outcome.isCancelled());
            CompletionException joined = assertThrows(CompletionException.class, refused::join);
            assertInstanceOf(RingIoException.class, joined.getCause());
            assertFalse(pool.isShutdown());
            assertFalse(queued.isDone());
        } finally {
            pool.shutdown().get(30, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    /** Whether the pool's file thread is inside a read (so the queue behind it is empty). */
    private static boolean aFileThreadIsReading() {
        for (var e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().startsWith("queue-full-file")) {
                for (StackTraceElement frame : e.getValue()) {
                    if (frame.getMethodName().equals("read") && frame.getClassName().contains("FileChannel")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
