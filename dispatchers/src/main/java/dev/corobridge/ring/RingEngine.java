package dev.corobridge.ring;

import java.nio.ByteBuffer;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;

/**
 * What carries out a ring's file operations: io_uring SQEs ({@link UringEngine}) or, where io_uring
 * is unavailable, blocking calls on a bounded executor ({@link BlockingEngine}). Every method is
 * called on the caller's thread at call time and must start the operation (or queue it to start)
 * before returning; outcomes are settled through the {@link RingOp}.
 */
interface RingEngine {

    void open(RingOp<RingFile> op, Ring ring, Path path, Set<? extends OpenOption> options, int flags);

    void read(RingOp<Integer> op, RingFile file, ByteBuffer dst, long position);

    /** {@code position < 0}: append (the file was opened with APPEND). */
    void write(RingOp<Integer> op, RingFile file, ByteBuffer src, long position);

    void sync(RingOp<Void> op, RingFile file, boolean dataOnly);

    void size(RingOp<Long> op, RingFile file);

    void close(RingOp<Void> op, RingFile file);

    /**
     * Closes a file during shutdown, bypassing the refusal of new operations: an uncancellable close
     * handed to {@link #closeAtShutdown}.
     */
    default RingOp<Void> closeNow(RingFile file) {
        RingOp<Void> op = RingOp.uncancellable("close", file.getPath().toString());
        closeAtShutdown(op, file);
        return op;
    }

    /**
     * Starts a close that runs even once shutdown refuses new operations, and must not wait behind
     * them either: shutdown closes the files to end what still runs in them.
     */
    void closeAtShutdown(RingOp<Void> op, RingFile file);

    /** Operations submitted and not yet completed. Any thread. */
    int inFlight();

    /** Shutdown phase 1: asks for every in-flight operation to stop; they settle as shut down. */
    void cancelAll(String reason);

    /** Releases the engine's own resources once nothing is in flight. */
    void release();
}
