package dev.corobridge.ring;

import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;
import io.netty.channel.uring.IoUringIoEvent;
import io.netty.channel.uring.IoUringIoHandle;
import io.netty.channel.uring.IoUringIoOps;
import io.netty.channel.unix.Buffer;
import io.netty.util.internal.CleanableDirectBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * File operations as io_uring SQEs on one Netty {@code IoEventLoop}.
 *
 * <h2>Implementation overview</h2>
 * One {@link IoUringIoHandle} is registered per ring. Every operation is handed to the loop thread
 * when it is called (directly when already on it), which takes a <i>slot</i> (1..32767, carried in
 * the SQE's user data so completions take Netty's fast path), writes the SQE, and records what to do
 * with the result. Netty submits the queued SQEs in one {@code io_uring_enter} per loop iteration,
 * so operations issued together are batched. The CQE comes back to {@link #handle} on the loop
 * thread: the slot's handler turns the result into the operation's outcome (a negative result into a
 * {@link RingIoException}, {@code ECANCELED} into cancellation), then releases the buffers the
 * operation pinned — never before the CQE, even if the awaiter gave up. When all slots are taken,
 * new operations wait in a FIFO queue on the loop thread; they are issued oldest first, and no new
 * operation passes one that waits.
 *
 * <p><b>Files and their close.</b> A file's operations all go to its ring, and the loop thread takes
 * them in in call order. The file's fd is read there, never on the caller's thread, and a file
 * whose close the loop has taken in refuses every later operation with {@code EBADF} (see
 * {@link #accept}): a check on the caller's thread alone could pass just before a concurrent close,
 * and the operation would then reach the kernel after the close, with a number that another open
 * may meanwhile have been given — its bytes would go to that other file. When the loop takes a
 * close in, it asks the kernel to cancel the file's operations it holds, and each operation taken in
 * before the close but issued after it (it waited for a slot) is cancelled as it is issued: they end
 * with {@code EBADF} unless they complete first, and the close completes after the last of them. So
 * a close never waits for a slot that only its own cancellations would free.
 *
 * <p>Cancellation (see {@link RingOp}): an operation not issued yet never is ({@link RingOp#start()}
 * fails); an open is withdrawable until its CQE, which closes the fd if the open was withdrawn (a
 * withdrawn open's failure settles nothing: the cancel() that withdrew it decided);
 * anything else in the kernel gets {@code IORING_OP_ASYNC_CANCEL} for its user data — that request's
 * own CQE is ignored, and the operation settles when its original CQE arrives.
 *
 * <p><b>Thread-safety.</b> Slots, the queue and buffers are confined to the loop thread; the public
 * entry points only hand work to it. {@link #inFlight()} is readable from any thread. Every method
 * that touches the loop's state asserts that it runs on the loop ({@code assert inLoop()}, as
 * Netty's handlers do), so a test run with assertions on fails where the confinement breaks.
 */
final class UringEngine implements RingEngine, IoUringIoHandle {

    private static final byte OP_FSYNC = 3;
    private static final byte OP_ASYNC_CANCEL = 14;
    private static final byte OP_OPENAT = 18;
    private static final byte OP_CLOSE = 19;
    private static final byte OP_STATX = 21;
    private static final byte OP_READ = 22;
    private static final byte OP_WRITE = 23;
    private static final int AT_FDCWD = -100;
    private static final int AT_EMPTY_PATH = 0x1000;
    private static final int STATX_SIZE = 0x200;
    private static final int STATX_SIZE_OFFSET = 40;
    private static final int STATX_STRUCT_SIZE = 256;
    private static final int IORING_FSYNC_DATASYNC = 1;
    private static final int SLOTS = 32_768; // slot 0 means "ignore this completion"
    /** Submission modes, see {@link #submit}. */
    private static final int CLOSE = 1;
    private static final int UNDOABLE = 2;

    private final IoEventLoop loop;
    private final RingMetricsRecorder metrics;
    private IoRegistration registration;

    // Loop-thread state.
    private final Submission[] slots = new Submission[SLOTS];
    private final int[] free = new int[SLOTS - 1];
    private int freeTop;
    private final ArrayDeque<Submission> waiting = new ArrayDeque<>();
    private boolean shuttingDown;
    private String shutdownReason;

    private final AtomicInteger inFlight = new AtomicInteger();

    UringEngine(IoEventLoop loop, RingMetricsRecorder metrics) {
        this.loop = loop;
        this.metrics = metrics;
        for (int i = SLOTS - 1; i >= 1; i--) {
            free[freeTop++] = i;
        }
    }

    /** Registers the handle on the loop; blocks until done (at pool start). */
    void register() throws InterruptedException {
        registration = loop.register(this).sync().getNow();
    }

    // ------------------------------------------------------------------ operations

    @Override
    public void open(RingOp<RingFile> op, Ring ring, Path path, Set<? extends OpenOption> options, int flags) {
        byte[] name = path.toString().getBytes(StandardCharsets.UTF_8);
        CleanableDirectBuffer cpath = Buffer.allocateDirectBufferWithNativeOrder(name.length + 1);
        cpath.buffer().put(name).put((byte) 0).flip();
        long addr = Buffer.memoryAddress(cpath.buffer());
        submit(op, "open", OP_OPENAT, null, 0, addr, 0644, flags, cpath, UNDOABLE, res -> {
            if (res < 0) {
                op.failErrno(-res);
            } else if (shuttingDown) {
                closeQuietly(res); // opened after all: never leak the fd
                op.shutDown(shutdownReason);
            } else if (!op.commit()) {
                closeQuietly(res); // cancel() withdrew the open meanwhile: its awaiter has left
            } else {
                RingFile f = new RingFile(ring, path, flags, res, null, true);
                ring.getPool().remember(f);
                op.succeed(f);
            }
        });
    }

    @Override
    public void read(RingOp<Integer> op, RingFile file, ByteBuffer dst, long position) {
        int len = dst.remaining();
        if (dst.isDirect()) {
            long addr = Buffer.memoryAddress(dst) + dst.position();
            submit(op, "read", OP_READ, file, position, addr, len, 0, dst, res -> {
                if (res < 0) {
                    op.failErrno(-res);
                } else {
                    dst.position(dst.position() + res);
                    op.succeed(res == 0 && len > 0 ? -1 : res);
                }
            });
        } else {
            CleanableDirectBuffer bounce = Buffer.allocateDirectBufferWithNativeOrder(Math.max(1, len));
            long addr = Buffer.memoryAddress(bounce.buffer());
            submit(op, "read", OP_READ, file, position, addr, len, 0, bounce, res -> {
                if (res < 0) {
                    op.failErrno(-res);
                } else {
                    ByteBuffer b = bounce.buffer();
                    b.limit(res).position(0);
                    dst.put(b);
                    op.succeed(res == 0 && len > 0 ? -1 : res);
                }
            });
        }
    }

    @Override
    public void write(RingOp<Integer> op, RingFile file, ByteBuffer src, long position) {
        int len = src.remaining();
        Object pinned;
        long addr;
        if (src.isDirect()) {
            addr = Buffer.memoryAddress(src) + src.position();
            pinned = src;
        } else {
            CleanableDirectBuffer bounce = Buffer.allocateDirectBufferWithNativeOrder(Math.max(1, len));
            bounce.buffer().put(src.duplicate()).flip();
            addr = Buffer.memoryAddress(bounce.buffer());
            pinned = bounce;
        }
        // Offset -1: "at the file position", which for an O_APPEND fd is its end.
        submit(op, position < 0 ? "append" : "write", OP_WRITE, file, position < 0 ? -1 : position,
                addr, len, 0, pinned, res -> {
                    if (res < 0) {
                        op.failErrno(-res);
                    } else {
                        src.position(src.position() + res);
                        op.succeed(res);
                    }
                });
    }

    @Override
    public void sync(RingOp<Void> op, RingFile file, boolean dataOnly) {
        submit(op, dataOnly ? "fdatasync" : "fsync", OP_FSYNC, file, 0, 0, 0,
                dataOnly ? IORING_FSYNC_DATASYNC : 0, null, noValue(op));
    }

    @Override
    public void size(RingOp<Long> op, RingFile file) {
        // statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, buf): the statx buffer goes in the SQE's off field.
        CleanableDirectBuffer mem = Buffer.allocateDirectBufferWithNativeOrder(STATX_STRUCT_SIZE + 1);
        ByteBuffer b = mem.buffer().order(ByteOrder.nativeOrder());
        b.put(STATX_STRUCT_SIZE, (byte) 0); // direct memory is not zeroed: write the empty C string
        long base = Buffer.memoryAddress(b);
        long emptyPath = base + STATX_STRUCT_SIZE;
        submit(op, "size", OP_STATX, file, base, emptyPath, STATX_SIZE, AT_EMPTY_PATH, mem, res -> {
            if (res < 0) {
                op.failErrno(-res);
            } else {
                op.succeed(b.getLong(STATX_SIZE_OFFSET));
            }
        });
    }

    @Override
    public void close(RingOp<Void> op, RingFile file) {
        submit(op, "close", OP_CLOSE, file, 0, 0, 0, 0, null, CLOSE, noValue(op));
    }

    /** A close always runs at shutdown here ({@link #CLOSE} mode): the same SQE. */
    @Override
    public void closeAtShutdown(RingOp<Void> op, RingFile file) {
        close(op, file);
    }

    @Override
    public int inFlight() {
        return inFlight.get();
    }

    @Override
    public void cancelAll(String reason) {
        onLoop(() -> {
            shuttingDown = true;
            shutdownReason = reason;
            // Waiting operations settle as shut down now; closes keep their place (they always run).
            ArrayDeque<Submission> keep = new ArrayDeque<>();
            Submission w;
            while ((w = waiting.poll()) != null) {
                if (w.runsAtShutdown()) {
                    keep.add(w);
                } else {
                    issue(w);
                }
            }
            waiting.addAll(keep);
            issueWaiting(); // slots may be free: the closes must not wait for a completion that never comes
            for (int i = 1; i < SLOTS; i++) {
                Submission p = slots[i];
                if (p != null && !p.cancelSent) {
                    p.cancelSent = true;
                    sqe(OP_ASYNC_CANCEL, -1, 0, p.userData, 0, 0, 0);
                }
            }
        });
    }

    @Override
    public void release() {
        onLoop(() -> {
            if (registration != null) {
                registration.cancel();
            }
        });
    }

    // ------------------------------------------------------------------ machinery

    /** What happens to a CQE's result, on the loop thread. */
    @FunctionalInterface
    private interface Completion {
        void onResult(int res);
    }

    /** The completion of an operation without a value (fsync, close): an errno, or done. */
    private static Completion noValue(RingOp<Void> op) {
        return res -> {
            if (res < 0) {
                op.failErrno(-res);
            } else {
                op.succeed(null);
            }
        };
    }

    /**
     * One operation from the call to its completion: the SQE's fields (the file's fd is read on the
     * loop thread when the SQE is written, see {@link #accept}), what it pins, what to do with the
     * result, and once issued its slot's user data.
     */
    private static final class Submission {
        final RingOp<?> op;
        final String kind;
        final byte opcode;
        final RingFile file;       // null: not a file's operation (open)
        final long off;
        final long addr;
        final int len;
        final int opFlags;
        final Object pinned;
        final int mode;            // CLOSE, UNDOABLE or 0
        final Completion completion;
        long userData;
        boolean cancelSent;
        /** The file's close asked the kernel to cancel it: a cancellation then reads as EBADF. */
        boolean closedUnder;

        Submission(RingOp<?> op, String kind, byte opcode, RingFile file, long off, long addr, int len, int opFlags,
                   Object pinned, int mode, Completion completion) {
            this.op = op;
            this.kind = kind;
            this.opcode = opcode;
            this.file = file;
            this.off = off;
            this.addr = addr;
            this.len = len;
            this.opFlags = opFlags;
            this.pinned = pinned;
            this.mode = mode;
            this.completion = completion;
        }

        boolean runsAtShutdown() {
            return mode == CLOSE;
        }
    }

    private void submit(RingOp<?> op, String kind, byte opcode, RingFile file, long off, long addr, int len, int opFlags,
                        Object pinned, Completion completion) {
        submit(op, kind, opcode, file, off, addr, len, opFlags, pinned, 0, completion);
    }

    /**
     * {@code mode}: {@link #CLOSE} for closes, which run even while the ring refuses new operations
     * at shutdown (refusing one would leak its fd); {@link #UNDOABLE} for work whose result the
     * completion undoes if {@link RingOp#cancel()} withdrew the operation meanwhile (an open).
     */
    private void submit(RingOp<?> op, String kind, byte opcode, RingFile file, long off, long addr, int len, int opFlags,
                        Object pinned, int mode, Completion completion) {
        op.countIn(inFlight);
        metrics.submitted(kind);
        Submission s = new Submission(op, kind, opcode, file, off, addr, len, opFlags, pinned, mode, completion);
        try {
            onLoop(() -> accept(s));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            finish(s); // the loop has terminated: settle here rather than never
            op.shutDown("the ring's event loop has terminated");
        }
    }

    /**
     * Loop thread: takes an operation in, in call order. This is where an operation on a file is
     * ordered with the file's close: once the close has been taken in, every later operation on the
     * file fails with {@code EBADF} here, without reaching the kernel — the fd number may already
     * belong to another file. Operations taken in before the close are issued before it (the queue
     * is FIFO, and the kernel takes its own reference to the file when it issues each SQE), so they
     * never see a reused number either.
     */
    private void accept(Submission s) {
        assert inLoop() : "accept off the ring's loop thread";
        RingFile file = s.file;
        if (file != null) {
            if (file.closeAccepted) {
                finish(s);
                metrics.failed(s.kind, Errno.EBADF);
                s.op.fail(new RingIoException(s.kind, file.getPath().toString(), Errno.EBADF,
                        "the file was closed before the operation reached its ring"));
                return;
            }
            if (s.opcode == OP_CLOSE) {
                file.closeAccepted = true;
                // Now, not when the close is issued: with every slot taken, the close waits behind
                // operations that only it would end (reads on a pipe), and no slot would free.
                cancelInFlightOf(file);
            }
        }
        if (freeTop == 0 || !waiting.isEmpty()) {
            waiting.add(s); // behind everything taken in before: order is kept
        } else {
            issue(s);
        }
    }

    /** Loop thread: writes the SQE into a free slot, or settles the operation if it must not run. */
    private void issue(Submission s) {
        assert inLoop() : "issue off the ring's loop thread";
        RingOp<?> op = s.op;
        if (shuttingDown && !s.runsAtShutdown()) {
            finish(s);
            op.shutDown(shutdownReason);
            return;
        }
        if (!(s.mode == UNDOABLE ? op.startWithdrawable() : op.start())) {
            finish(s); // cancel() withdrew it before it started: it is cancelled already
            return;
        }
        // A close needs no walk here: the file's operations in the kernel were cancelled when the
        // close was taken in (accept), and each one issued since is cancelled as it is issued (below).
        int slot = free[--freeTop];
        slots[slot] = s;
        int fd = s.file != null ? s.file.fd : AT_FDCWD;
        s.userData = registration.submit(new IoUringIoOps(s.opcode, (byte) 0, (short) 0, fd, s.off, s.addr, s.len,
                s.opFlags, slot, (short) 0, (short) 0, 0, 0L));
        if (s.file != null && s.opcode != OP_CLOSE) {
            s.file.inKernel++;
            if (s.file.closeAccepted && !s.cancelSent) {
                // Taken in before its file's close but issued after the close was (it waited for a
                // slot): the close ends it as it ends those in the kernel already, unless it completes first.
                s.cancelSent = true;
                s.closedUnder = true;
                sqe(OP_ASYNC_CANCEL, -1, 0, s.userData, 0, 0, 0);
            }
        }
        op.armCancel(() -> {
            requestKernelCancel(slot, s);
            return false; // the kernel decides: the CQE says cancelled, or the real result
        });
    }

    /**
     * Loop thread, at a file's close: asks the kernel to cancel every operation on the file it still
     * holds. The kernel keeps its own reference to the file for each, so without this a read waiting
     * on a pipe would outlive the close and take bytes a later writer sends into its buffer; now it
     * ends with {@code EBADF}, as on the fallback, and the close completes only after it
     * ({@link RingFile#whenDrained}).
     */
    private void cancelInFlightOf(RingFile file) {
        if (file.inKernel == 0) {
            return; // the usual close, after its file's operations ended: no walk of the slots
        }
        for (int i = 1; i < SLOTS; i++) {
            Submission p = slots[i];
            if (p != null && p.file == file && !p.cancelSent) {
                p.cancelSent = true;
                p.closedUnder = true;
                sqe(OP_ASYNC_CANCEL, -1, 0, p.userData, 0, 0, 0);
            }
        }
    }

    /** Any thread: asks the kernel to cancel {@code s} if it still holds slot {@code slot}. */
    private void requestKernelCancel(int slot, Submission s) {
        try {
            onLoop(() -> {
                if (slots[slot] == s && !s.cancelSent) {
                    s.cancelSent = true;
                    sqe(OP_ASYNC_CANCEL, -1, 0, s.userData, 0, 0, 0);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // The loop has terminated: the ring is gone with everything in it; shutdown settles.
        }
    }

    /** Loop thread: issues waiting operations, oldest first, while slots are free. */
    private void issueWaiting() {
        assert inLoop() : "issueWaiting off the ring's loop thread";
        Submission w;
        while (freeTop > 0 && (w = waiting.poll()) != null) {
            issue(w);
        }
    }

    @Override
    public void handle(IoRegistration reg, IoEvent event) {
        assert inLoop() : "a completion handled off the ring's loop thread";
        IoUringIoEvent e = (IoUringIoEvent) event;
        int slot = e.data() & 0xFFFF;
        if (slot == 0) {
            return; // a cancel request's or an internal close's own completion
        }
        Submission p = slots[slot];
        slots[slot] = null;
        free[freeTop++] = slot;
        if (p == null) {
            return;
        }
        int res = e.res();
        RingFile file = p.file;
        if (file != null && p.opcode == OP_CLOSE && file.inKernel > 0) {
            // The close's own operations end first (cancelInFlightOf): it completes after the last.
            file.whenDrained = () -> settle(p, res);
        } else {
            settle(p, res);
        }
        if (file != null && p.opcode != OP_CLOSE && --file.inKernel == 0 && file.whenDrained != null) {
            Runnable close = file.whenDrained;
            file.whenDrained = null;
            close.run();
        }
        issueWaiting();
    }

    /** Loop thread: settles an issued operation with the kernel's result {@code res}. */
    private void settle(Submission p, int res) {
        // Counted out before the outcome is published: whoever sees the operation done (a callback
        // on this thread, an awaiter, pool shutdown counting what is left) must not still count it.
        p.op.countOut();
        metrics.completed();
        try {
            if (res < 0 && -res == Errno.ECANCELED && shuttingDown) {
                p.op.shutDown(shutdownReason);
            } else if (res < 0 && -res == Errno.ECANCELED && p.closedUnder) {
                metrics.failed(p.kind, Errno.EBADF);
                p.op.fail(new RingIoException(p.kind, p.file.getPath().toString(), Errno.EBADF,
                        "the file was closed while the operation ran"));
            } else {
                if (res < 0 && -res != Errno.ECANCELED) {
                    metrics.failed(p.kind, -res); // ECANCELED settles as a cancellation, not a failure
                }
                p.completion.onResult(res);
            }
        } catch (Throwable t) {
            p.op.fail(t);
        } finally {
            release(p.pinned); // after the completion: it may still copy out of the pinned buffer
        }
    }

    /** An operation that ends without a kernel completion: counted out and as completed, its buffer released. */
    private void finish(Submission s) {
        s.op.countOut(); // a no-op if cancel() withdrew it, which counted it out then
        metrics.completed(); // completions count every outcome, not only the kernel's
        release(s.pinned);
    }

    private static void release(Object pinned) {
        if (pinned instanceof CleanableDirectBuffer c) {
            c.clean(); // only now: the kernel is done with it
        }
    }

    private void sqe(byte opcode, int fd, long off, long addr, int len, int opFlags, int slot) {
        assert inLoop() : "an SQE written off the ring's loop thread";
        registration.submit(new IoUringIoOps(opcode, (byte) 0, (short) 0, fd, off, addr, len, opFlags,
                slot, (short) 0, (short) 0, 0, 0L));
    }

    private void closeQuietly(int fd) {
        sqe(OP_CLOSE, fd, 0, 0, 0, 0, 0);
    }

    /** Whether the caller is the loop thread, the only one that may touch the loop's state. */
    boolean inLoop() {
        return loop.inEventLoop();
    }

    private void onLoop(Runnable r) {
        if (loop.inEventLoop()) {
            r.run();
        } else {
            loop.execute(r);
        }
    }

    @Override
    public void close() {
        // Netty calls this when the registration is cancelled or the loop shuts down.
    }
}
