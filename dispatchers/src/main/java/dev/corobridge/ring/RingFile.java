package dev.corobridge.ring;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An open file bound to one {@link Ring}: every operation on it is submitted to that ring (sticky
 * placement). The Java members end in {@code Async}: the operation departs when the method is
 * called and the returned {@link RingOp} is its handle ({@code readAsync(buf, pos).join()} on a
 * virtual thread; two calls then two joins overlap). From Kotlin, the suspending extensions in
 * {@code RingFiles.kt} keep the plain verbs ({@code file.read(buf, pos)} etc.): they wait for the
 * result and, if the coroutine is cancelled, cancel the operation in the kernel and wait for its
 * completion before rethrowing. {@link #close()} is the blocking {@link AutoCloseable} close;
 * {@link #closeAsync()} the non-blocking one.
 *
 * <p><b>Buffers.</b> A direct buffer is handed to the kernel as is; a heap buffer goes through a
 * direct bounce buffer (one copy). Either way, the buffer must not be touched until the operation's
 * outcome is known; on success its position has moved by the bytes transferred.
 *
 * <p><b>Errors</b> are {@link RingIoException}s naming the errno, the operation and the path.
 * Operations on a closed file fail with {@code EBADF} without reaching the kernel (an fd number may
 * already belong to another file): at once when {@link #closeAsync()} was called before, and otherwise
 * when they reach the ring, which orders them with the close. An operation called concurrently with
 * {@code closeAsync()} therefore either runs before the close or fails with {@code EBADF}; it never
 * reaches whatever file later gets the same number. (The fallback engine's {@code FileChannel}
 * gives the same guarantee: it closes its fd only once no call is inside it, and refuses calls after.)
 * An operation still in flight when the file closes (a read waiting on a pipe) is ended by the close
 * with {@code EBADF}, "closed while the operation ran", unless it completes first; the close
 * completes after it (on both engines), and nothing reaches its buffer afterwards.
 *
 * <p><b>Thread-safety.</b> Safe from any thread; concurrent positional operations are independent.
 */
public final class RingFile implements AutoCloseable {

    private final Ring ring;
    private final Path path;
    private final int flags;
    final int fd;
    final FileChannel channel;
    /** Fallback only: whether positional calls apply (not for pipes and devices). */
    final boolean seekable;
    private final AtomicBoolean closed = new AtomicBoolean();
    /**
     * io_uring engine, ring thread only: the ring has taken in this file's close, so it refuses every
     * operation it takes in after it (see {@code UringEngine#accept}).
     */
    boolean closeAccepted;
    /** io_uring engine, ring thread only: this file's operations the kernel holds now (not its close). */
    int inKernel;
    /** io_uring engine, ring thread only: the close's settling, held until {@link #inKernel} is 0. */
    Runnable whenDrained;
    /** Fallback engine: this file's calls handed to the file threads and not settled yet (not its close). */
    final java.util.concurrent.atomic.AtomicInteger callsInFlight = new java.util.concurrent.atomic.AtomicInteger();
    /** Fallback engine: the close's settling, held until {@link #callsInFlight} is 0; taken once. */
    final java.util.concurrent.atomic.AtomicReference<Runnable> whenCallsEnded = new java.util.concurrent.atomic.AtomicReference<>();

    RingFile(Ring ring, Path path, int flags, int fd, FileChannel channel, boolean seekable) {
        this.ring = ring;
        this.path = path;
        this.flags = flags;
        this.fd = fd;
        this.channel = channel;
        this.seekable = seekable;
    }

    /** Marks the file closed for shutdown; {@code true} if it was open. */
    boolean markClosed() {
        return closed.compareAndSet(false, true);
    }

    /** The ring every operation on this file goes to. */
    public Ring getRing() {
        return ring;
    }

    /** The path it was opened with. */
    public Path getPath() {
        return path;
    }

    /** Whether {@link #closeAsync()} (or {@link #close()}) was called. */
    public boolean isClosed() {
        return closed.get();
    }

    /** {@code fsync(2)}: data and metadata reach the disk. */
    public RingOp<Void> fsyncAsync() {
        return sync(false);
    }

    /** {@code fdatasync(2)}: data (and the metadata needed to read it) reach the disk. */
    public RingOp<Void> fdatasyncAsync() {
        return sync(true);
    }

    /**
     * Closes the file and waits for the close ({@link AutoCloseable}: try-with-resources from Java).
     * Refused on threads that must not block — the pump, and every thread of this file's pool — with
     * an {@link IllegalStateException} naming {@link #closeAsync()}, the form to use there (from
     * Kotlin: {@code closeAsync().await()}). Closing twice returns at once.
     *
     * @throws IllegalStateException on the pump or a ring thread
     * @throws RingIoException       if the close failed
     * @throws dev.corobridge.bridge.ContextShutdownException if the pool shut down first
     */
    @Override
    public void close() throws java.io.IOException {
        BlockingClose.closeAndWait(ring, this, this::closeAsync);
    }

    @Override
    public String toString() {
        return "RingFile[" + path + " on " + ring.getName() + (closed.get() ? ", closed" : "") + "]";
    }

    // ------------------------------------------------------------------ operations (each departs when called)

    /**
     * Reads up to {@code dst.remaining()} bytes at {@code position}. The result is the number of
     * bytes read, or -1 at end of file (as {@code FileChannel.read(dst, position)}).
     */
    public RingOp<Integer> readAsync(ByteBuffer dst, long position) {
        Objects.requireNonNull(dst, "dst");
        checkPosition(position);
        if (dst.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only buffer");
        }
        RingOp<Integer> op = new RingOp<>("read", path.toString());
        if (!rejectIfClosed(op)) {
            ring.engine().read(op, this, dst, position);
        }
        return op;
    }

    /** Writes {@code src.remaining()} bytes at {@code position}; the result may be short. */
    public RingOp<Integer> writeAsync(ByteBuffer src, long position) {
        Objects.requireNonNull(src, "src");
        checkPosition(position);
        RingOp<Integer> op = new RingOp<>("write", path.toString());
        if (!rejectIfClosed(op)) {
            ring.engine().write(op, this, src, position);
        }
        return op;
    }

    /** Appends {@code src} at the end of the file (opened with {@code APPEND}); atomic per call. */
    public RingOp<Integer> appendAsync(ByteBuffer src) {
        Objects.requireNonNull(src, "src");
        if (!OpenFlags.isAppend(flags)) {
            throw new IllegalStateException("append needs a file opened with StandardOpenOption.APPEND: " + path);
        }
        RingOp<Integer> op = new RingOp<>("append", path.toString());
        if (!rejectIfClosed(op)) {
            ring.engine().write(op, this, src, -1);
        }
        return op;
    }

    private RingOp<Void> sync(boolean dataOnly) {
        RingOp<Void> op = new RingOp<>(dataOnly ? "fdatasync" : "fsync", path.toString());
        if (!rejectIfClosed(op)) {
            ring.engine().sync(op, this, dataOnly);
        }
        return op;
    }

    /** The file's current size in bytes. */
    public RingOp<Long> sizeAsync() {
        RingOp<Long> op = new RingOp<>("size", path.toString());
        if (!rejectIfClosed(op)) {
            ring.engine().size(op, this);
        }
        return op;
    }

    /**
     * Closes the file; later operations fail with {@code EBADF} (one racing the close runs before it
     * or fails so: see the class comment). Closing twice completes at once. A close cannot be
     * cancelled (that would leak the fd).
     */
    public RingOp<Void> closeAsync() {
        RingOp<Void> op = RingOp.uncancellable("close", path.toString()); // withdrawing it would leak the fd
        if (!closed.compareAndSet(false, true)) {
            op.succeed(null);
            return op;
        }
        ring.getPool().forget(this);
        ring.engine().close(op, this);
        return op;
    }

    /**
     * Reads until {@code dst} is full or end of file, handling short reads; the result is the bytes
     * read (less than requested only at end of file).
     */
    public RingOp<Integer> readFullyAsync(ByteBuffer dst, long position) {
        return submitFully(Objects.requireNonNull(dst, "dst"), position, true);
    }

    /** Writes all of {@code src} at {@code position}, handling short writes. */
    public RingOp<Integer> writeFullyAsync(ByteBuffer src, long position) {
        return submitFully(Objects.requireNonNull(src, "src"), position, false);
    }

    /** One operation that reads ({@code read}) or writes all of {@code buffer}, one transfer after another. */
    private RingOp<Integer> submitFully(ByteBuffer buffer, long position, boolean read) {
        checkPosition(position);
        RingOp<Integer> whole = new RingOp<>(read ? "read" : "write", path.toString());
        new FullTransfer(whole, buffer, position, read).next(0);
        return whole;
    }

    /**
     * Fails {@code op} at once if {@link #close()} was called already. Only a fast path: an operation
     * that passes it may still be overtaken by a concurrent close, and the engine orders the two.
     */
    private boolean rejectIfClosed(RingOp<?> op) {
        if (closed.get()) {
            ring.getPool().recordFailure(op.getOperation(), Errno.EBADF); // counted as the engines count theirs
            op.fail(new RingIoException(op.getOperation(), path.toString(), Errno.EBADF, "the file is closed"));
            return true;
        }
        return false;
    }

    private static void checkPosition(long position) {
        if (position < 0) {
            throw new IllegalArgumentException("position must not be negative, was " + position);
        }
    }

    /**
     * Repeats positional reads or writes until done: short transfers are normal for files too. The
     * whole operation is cancelled through its current part: cancelling the whole cancels that part,
     * and decides at once exactly when that part's cancellation does (it had not started). A whole
     * transfer that ends cancelled may have moved part of the bytes: the buffer's position says how many.
     */
    private final class FullTransfer {
        private final RingOp<Integer> whole;
        private final ByteBuffer buf;
        private final long start;
        private final boolean reading;
        private volatile RingOp<Integer> current;

        FullTransfer(RingOp<Integer> whole, ByteBuffer buf, long start, boolean reading) {
            this.whole = whole;
            this.buf = buf;
            this.start = start;
            this.reading = reading;
            whole.start(); // its outcome follows its parts'
            whole.armCancel(() -> {
                RingOp<Integer> c = current;
                if (c != null && c.cancel()) {
                    // The part was withdrawn by this call, so the whole is cancelled by it too: make
                    // sure that is settled before cancel() returns (the part's callback may not be
                    // registered yet).
                    whole.cancelled();
                    return true;
                }
                return false;
            });
        }

        void next(int done) {
            if (!buf.hasRemaining()) {
                whole.succeed(done);
                return;
            }
            if (whole.isCancelRequested()) {
                whole.cancelled();
                return;
            }
            RingOp<Integer> op = reading ? readAsync(buf, start + done) : writeAsync(buf, start + done);
            current = op;
            if (whole.isCancelRequested()) {
                op.cancel();
            }
            op.onComplete(o -> {
                switch (o) {
                    case dev.corobridge.bridge.Outcome.Success<Integer> s -> {
                        int n = s.value();
                        if (n < 0 || (n == 0 && reading)) {
                            whole.succeed(done); // end of file
                        } else if (n == 0) {
                            whole.fail(new RingIoException("write", path.toString(), Errno.EIO, "no progress"));
                        } else {
                            next(done + n);
                        }
                    }
                    case dev.corobridge.bridge.Outcome.Failure<Integer> f -> whole.fail(f.error());
                    case dev.corobridge.bridge.Outcome.Cancelled<Integer> c -> whole.cancelled();
                }
            });
        }
    }
}
