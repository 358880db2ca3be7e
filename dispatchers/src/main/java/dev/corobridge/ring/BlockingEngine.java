package dev.corobridge.ring;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.NonReadableChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fallback engine: each file operation is a blocking {@code FileChannel} call on a bounded
 * executor shared by the pool, and its outcome is settled back on the ring's loop thread, so
 * completion routing is the same as with io_uring.
 *
 * <p><b>Cancellation</b> (see {@link RingOp}). An operation that has not started never runs:
 * {@link RingOp#cancel()} decides it at once. One that is running cannot be stopped (interrupting a
 * {@code FileChannel} would close it): cancel() returns {@code false}, and the operation settles with
 * its real result when the call returns. An open is the exception: cancel() withdraws it at once,
 * and a channel opened anyway is closed; an open that fails, or is refused at shutdown, after the
 * withdrawal settles nothing (the cancel() that withdrew it decided).
 *
 * <p><b>Close.</b> A {@code FileChannel} never lets a call use its fd after a close: it closes the
 * fd only once no call is inside it (a blocked one is woken first), and a call that starts after
 * the close fails with {@code ClosedChannelException}. So an operation racing a file's close runs
 * before it or fails with {@code EBADF}; it can never reach a file that later got the same number.
 * The close's own outcome waits for the file's calls that were handed to the file threads before
 * it (a read blocked on a pipe, woken by the close with {@code EBADF}): it completes after theirs.
 * A close runs on a thread of the pool's closers (made as needed, never refused), not on a file
 * thread: the file threads may all be blocked in calls that only a close ends, or their queue be
 * full, and a close must neither wait for them nor be refused (its file is already marked closed
 * and forgotten by the pool: a refusal would leave its descriptor open). Once the closers have
 * stopped (the pool's termination), a close runs on the caller's thread.
 *
 * <p><b>Thread-safety.</b> Safe from any thread.
 */
final class BlockingEngine implements RingEngine {

    private final Executor loop;
    private final Executor files;
    private final ExecutorService closers;
    private final RingMetricsRecorder metrics;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile String shutdownReason;

    /**
     * @param files   the pool's bounded file threads
     * @param closers the pool's closers: a thread for every close that finds none idle, never a
     *                refusal until they are shut down ({@link #release()})
     */
    BlockingEngine(Executor loop, Executor files, ExecutorService closers, RingMetricsRecorder metrics) {
        this.loop = loop;
        this.files = files;
        this.closers = closers;
        this.metrics = metrics;
    }

    @FunctionalInterface
    private interface Call<T> {
        T run() throws IOException;
    }

    @Override
    public void open(RingOp<RingFile> op, Ring ring, Path path, Set<? extends OpenOption> options, int flags) {
        run(op, "open", false, path, null, () -> FileChannel.open(path, options), ch -> {
            // Pipes and devices have no position: positional calls would fail with ESPIPE where
            // io_uring simply reads the stream. Decide once, at open.
            boolean seekable = java.nio.file.Files.isRegularFile(path);
            RingFile f = new RingFile(ring, path, flags, -1, ch, seekable);
            ring.getPool().remember(f);
            return f;
        }, ch -> {
            try {
                ch.close();
            } catch (IOException ignored) {
                // cancelled open: nothing to report
            }
        }, null);
    }

    @Override
    public void read(RingOp<Integer> op, RingFile file, ByteBuffer dst, long position) {
        run(op, "read", file, () -> {
            checkEnd(file, dst, position);
            return file.seekable ? file.channel.read(dst, position) : file.channel.read(dst);
        }, n -> n, null);
    }

    /**
     * A positional transfer whose end lies beyond the largest file offset is refused as the kernel
     * refuses it (EINVAL); the JDK's call fails with an IOException that would read as EIO.
     */
    private static void checkEnd(RingFile file, ByteBuffer buffer, long position) {
        if (file.seekable && position >= 0 && position > Long.MAX_VALUE - buffer.remaining()) {
            throw new IllegalArgumentException("position " + position + " + " + buffer.remaining()
                    + " bytes is beyond the largest file offset");
        }
    }

    @Override
    public void write(RingOp<Integer> op, RingFile file, ByteBuffer src, long position) {
        run(op, position < 0 ? "append" : "write", file,
                () -> {
                    checkEnd(file, src, position);
                    return position < 0 || !file.seekable ? file.channel.write(src) : file.channel.write(src, position);
                }, n -> n, null);
    }

    @Override
    public void sync(RingOp<Void> op, RingFile file, boolean dataOnly) {
        run(op, dataOnly ? "fdatasync" : "fsync", file, () -> {
            file.channel.force(!dataOnly);
            return null;
        }, v -> null, null);
    }

    @Override
    public void size(RingOp<Long> op, RingFile file) {
        run(op, "size", file, file.channel::size, s -> s, null);
    }

    @Override
    public void close(RingOp<Void> op, RingFile file) {
        // Closing the channel wakes the calls blocked in it, which then fail with EBADF on their
        // own file threads: the close settles once they have settled (as on io_uring).
        run(op, "close", true, null, null, () -> {
            file.channel.close();
            return null;
        }, null, null, () -> {
            file.whenCallsEnded.set(() -> op.succeed(null));
            if (file.callsInFlight.get() == 0) {
                settleWaitingClose(file);
            }
        });
    }

    /** Settles the file's close if it waits for its calls (once, whoever gets here first). */
    private static void settleWaitingClose(RingFile file) {
        Runnable close = file.whenCallsEnded.getAndSet(null);
        if (close != null) {
            close.run();
        }
    }

    /** One of the file's calls has settled (or never went to a file thread). */
    private static void callEnded(RingFile file) {
        if (file != null && file.callsInFlight.decrementAndGet() == 0) {
            settleWaitingClose(file);
        }
    }

    /**
     * On the caller's thread, not a file thread: the file threads may all be blocked in calls that
     * only this close ends.
     */
    @Override
    public void closeAtShutdown(RingOp<Void> op, RingFile file) {
        try {
            file.channel.close();
            op.succeed(null);
        } catch (IOException e) {
            op.fail(e);
        }
    }

    @Override
    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public void cancelAll(String reason) {
        shutdownReason = reason;
    }

    /** Stops the closers (shared by the pool's rings: stopping them twice is harmless); a later close runs on its caller. */
    @Override
    public void release() {
        closers.shutdown();
    }

    /**
     * Runs {@code call} on a file thread and settles {@code op} on the loop. {@code undo}, if given,
     * makes the operation withdrawable: it undoes a result that arrives after {@link RingOp#cancel()}
     * or shutdown. {@code runsAtShutdown}: a close, which runs even once shutdown refuses the rest.
     */
    private <R, T> void run(RingOp<T> op, String kind, RingFile file, Call<R> call,
                            java.util.function.Function<R, T> map, java.util.function.Consumer<R> undo) {
        run(op, kind, false, null, file, call, map, undo, null);
    }

    /**
     * {@code opened}: the path, for an open (its failures are told apart by the path's state).
     * {@code file}: the file whose call this is, counted in its {@link RingFile#callsInFlight} until
     * settled (null for an open and a close). {@code succeed}: how a success settles, instead of
     * succeeding {@code op} at once (a close's, which waits for the file's calls).
     */
    private <R, T> void run(RingOp<T> op, String kind, boolean runsAtShutdown, Path opened, RingFile file, Call<R> call,
                            java.util.function.Function<R, T> map, java.util.function.Consumer<R> undo, Runnable succeed) {
        op.countIn(inFlight);
        metrics.submitted(kind);
        if (file != null) {
            file.callsInFlight.incrementAndGet();
        }
        Runnable task = () -> {
            if (shutdownReason != null && !runsAtShutdown) {
                settle(op, file, () -> op.shutDown(shutdownReason));
                return;
            }
            if (!(undo != null ? op.startWithdrawable() : op.start())) {
                settle(op, file, () -> { }); // cancel() withdrew it before it started: cancelled already
                return;
            }
            R r;
            try {
                r = call.run();
            } catch (IOException | RuntimeException e) {
                if (e instanceof ClosedChannelException && shutdownReason != null) {
                    // Its file was closed under it by the pool's shutdown (phase 2 ends blocking calls so).
                    settle(op, file, () -> op.shutDown(shutdownReason));
                } else {
                    settle(op, file, () -> op.fail(translate(kind, op.getTarget(), e, opened)));
                }
                return;
            }
            if (undo != null && (shutdownReason != null || !op.commit())) {
                undo.accept(r); // its awaiter has left (cancelled, or the pool is shutting down)
                settle(op, file, () -> abort(op));
            } else {
                settle(op, file, succeed != null ? succeed : () -> op.succeed(map.apply(r)));
            }
        };
        boolean close = kind.equals("close");
        try {
            (close ? closers : files).execute(task);
        } catch (RejectedExecutionException | OutOfMemoryError e) {
            // OutOfMemoryError: the JVM could not make a thread for it (a process at its thread limit).
            if (close) {
                task.run(); // the closers have stopped, or none could be made: close here rather than leave the descriptor open
                return;
            }
            op.countOut();
            metrics.completed(); // ended without a file thread: completed all the same (any outcome)
            callEnded(file);
            if (shutdownReason != null || files instanceof java.util.concurrent.ExecutorService es && es.isShutdown()) {
                op.shutDown(shutdownReason != null ? shutdownReason : "the fallback's file threads have stopped");
            } else {
                // An overload, not a shutdown: a failure the caller can see and retry, never a
                // cancellation that a coroutine or a catch (CancellationException) would drop.
                metrics.failed(kind, Errno.EAGAIN);
                op.fail(new RingIoException(kind, op.getTarget(), Errno.EAGAIN, e instanceof OutOfMemoryError
                        ? "no file thread could be made (" + e.getMessage() + "); try again"
                        : "the fallback's file threads are all busy and their queue is full "
                        + "(RingPoolConfig.fallbackQueueCapacity); try again"));
            }
        }
    }

    private void abort(RingOp<?> op) {
        if (shutdownReason != null) {
            op.shutDown(shutdownReason);
        } else {
            op.cancelled();
        }
    }

    private void settle(RingOp<?> op, RingFile file, Runnable outcome) {
        Runnable r = () -> {
            op.countOut(); // a no-op if cancel() withdrew it, which counted it out then
            metrics.completed();
            outcome.run();
            callEnded(file); // after its outcome: a close waiting for it completes after it
        };
        try {
            loop.execute(r);
        } catch (RejectedExecutionException e) {
            r.run(); // the loop is gone: settle here rather than never
        }
    }

    /**
     * The same typed errors as the io_uring engine. The JDK reports errno only through exception
     * types (and a free-form, possibly localised reason): the types decide, and where one type stands
     * for several errnos (a failed open's {@code FileSystemException}) the file system's state does —
     * never the message.
     */
    private Throwable translate(String kind, String target, Exception e, Path opened) {
        int errno;
        String detail = null;
        if (e instanceof NoSuchFileException) {
            errno = Errno.ENOENT;
        } else if (e instanceof AccessDeniedException) {
            errno = Errno.EACCES;
        } else if (e instanceof FileAlreadyExistsException) {
            errno = Errno.EEXIST;
        } else if (e instanceof NotDirectoryException) {
            errno = Errno.ENOTDIR;
        } else if (e instanceof ClosedChannelException) {
            errno = Errno.EBADF;
            detail = e instanceof java.nio.channels.AsynchronousCloseException
                    ? "the file was closed while the operation ran" : "the file was closed before the operation started";
        } else if (e instanceof NonReadableChannelException || e instanceof NonWritableChannelException) {
            errno = Errno.EBADF;
        } else if (e instanceof IllegalArgumentException) {
            errno = Errno.EINVAL;
        } else if (opened != null && e instanceof java.nio.file.FileSystemException) {
            errno = openFailure(opened);
        } else if (opened == null && (kind.equals("read") || kind.equals("write") || kind.equals("append")) && isDirectory(target)) {
            errno = Errno.EISDIR; // a read or write of a directory opened for reading: the JDK says only IOException
        } else {
            errno = Errno.EIO;
        }
        metrics.failed(kind, errno);
        RingIoException r = new RingIoException(kind, target, errno, detail);
        r.initCause(e);
        return r;
    }

    private static boolean isDirectory(String target) {
        try {
            return java.nio.file.Files.isDirectory(Path.of(target));
        } catch (RuntimeException notAPath) {
            return false;
        }
    }

    /** Why opening {@code path} failed, from the file system's state: a directory, a read-only store. */
    private static int openFailure(Path path) {
        if (java.nio.file.Files.isDirectory(path)) {
            return Errno.EISDIR;
        }
        try {
            Path p = path.toAbsolutePath();
            while (p != null && !java.nio.file.Files.exists(p)) {
                p = p.getParent();
            }
            if (p != null && java.nio.file.Files.getFileStore(p).isReadOnly()) {
                return Errno.EROFS;
            }
        } catch (IOException | SecurityException ignored) {
            // cannot tell
        }
        return Errno.EIO;
    }
}
