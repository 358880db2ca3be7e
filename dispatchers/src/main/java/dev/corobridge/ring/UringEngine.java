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
 * new operations wait in a FIFO queue on the loop thread.
 *
 * <p>Cancellation submits {@code IORING_OP_ASYNC_CANCEL} for the operation's user data; its own
 * CQE is ignored, and the operation settles when its original CQE arrives.
 *
 * <p><b>Thread-safety.</b> Slots, the queue and buffers are confined to the loop thread; the public
 * entry points only hand work to it. {@link #inFlight()} is readable from any thread.
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

    private final IoEventLoop loop;
    private final RingMetricsRecorder metrics;
    private IoRegistration registration;

    // Loop-thread state.
    private final Pending[] slots = new Pending[SLOTS];
    private final int[] free = new int[SLOTS - 1];
    private int freeTop;
    private final ArrayDeque<Runnable> waiting = new ArrayDeque<>();
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
        submit(op, "open", OP_OPENAT, AT_FDCWD, 0, addr, 0644, flags, cpath, res -> {
            if (res < 0) {
                op.failErrno(-res);
            } else if (op.isCancelRequested() || shuttingDown) {
                closeQuietly(res); // opened after all: never leak the fd
                if (shuttingDown) {
                    op.shutDown(shutdownReason);
                } else {
                    op.cancelled();
                }
            } else {
                RingFile f = new RingFile(ring, path, flags, res, null, true);
                ring.pool().remember(f);
                op.succeed(f);
            }
        });
    }

    @Override
    public void read(RingOp<Integer> op, RingFile file, ByteBuffer dst, long position) {
        int len = dst.remaining();
        if (dst.isDirect()) {
            long addr = Buffer.memoryAddress(dst) + dst.position();
            submit(op, "read", OP_READ, file.fd, position, addr, len, 0, dst, res -> {
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
            submit(op, "read", OP_READ, file.fd, position, addr, len, 0, bounce, res -> {
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
        submit(op, position < 0 ? "append" : "write", OP_WRITE, file.fd, position < 0 ? -1 : position,
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
        submit(op, dataOnly ? "fdatasync" : "fsync", OP_FSYNC, file.fd, 0, 0, 0,
                dataOnly ? IORING_FSYNC_DATASYNC : 0, null, res -> {
                    if (res < 0) {
                        op.failErrno(-res);
                    } else {
                        op.succeed(null);
                    }
                });
    }

    @Override
    public void size(RingOp<Long> op, RingFile file) {
        // statx(fd, "", AT_EMPTY_PATH, STATX_SIZE, buf): the statx buffer goes in the SQE's off field.
        CleanableDirectBuffer mem = Buffer.allocateDirectBufferWithNativeOrder(STATX_STRUCT_SIZE + 1);
        ByteBuffer b = mem.buffer().order(ByteOrder.nativeOrder());
        b.put(STATX_STRUCT_SIZE, (byte) 0); // direct memory is not zeroed: write the empty C string
        long base = Buffer.memoryAddress(b);
        long emptyPath = base + STATX_STRUCT_SIZE;
        submit(op, "size", OP_STATX, file.fd, base, emptyPath, STATX_SIZE, AT_EMPTY_PATH, mem, res -> {
            if (res < 0) {
                op.failErrno(-res);
            } else {
                op.succeed(b.getLong(STATX_SIZE_OFFSET));
            }
        });
    }

    @Override
    public void close(RingOp<Void> op, RingFile file) {
        submit(op, "close", OP_CLOSE, file.fd, 0, 0, 0, 0, null, res -> {
            if (res < 0) {
                op.failErrno(-res);
            } else {
                op.succeed(null);
            }
        });
    }

    @Override
    public RingOp<Void> closeNow(RingFile file) {
        RingOp<Void> op = new RingOp<>("close", file.path().toString());
        submit(op, "close", OP_CLOSE, file.fd, 0, 0, 0, 0, null, true, res -> {
            if (res < 0) {
                op.failErrno(-res);
            } else {
                op.succeed(null);
            }
        });
        return op;
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
            Runnable w;
            while ((w = waiting.poll()) != null) {
                w.run(); // they see shuttingDown and settle as shut down
            }
            for (int i = 1; i < SLOTS; i++) {
                Pending p = slots[i];
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

    private static final class Pending {
        final RingOp<?> op;
        final String kind;
        final Object pinned;
        final Completion completion;
        long userData;
        boolean cancelSent;

        Pending(RingOp<?> op, String kind, Object pinned, Completion completion) {
            this.op = op;
            this.kind = kind;
            this.pinned = pinned;
            this.completion = completion;
        }
    }

    private void submit(RingOp<?> op, String kind, byte opcode, int fd, long off, long addr, int len, int opFlags,
                        Object pinned, Completion completion) {
        submit(op, kind, opcode, fd, off, addr, len, opFlags, pinned, false, completion);
    }

    /** {@code internal}: shutdown's own closes, which must run even while new operations are refused. */
    private void submit(RingOp<?> op, String kind, byte opcode, int fd, long off, long addr, int len, int opFlags,
                        Object pinned, boolean internal, Completion completion) {
        inFlight.incrementAndGet();
        metrics.submitted(kind);
        try {
            onLoop(() -> submitOnLoop(op, kind, opcode, fd, off, addr, len, opFlags, pinned, internal, completion));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            finish(pinned); // the loop has terminated: settle here rather than never
            op.shutDown("the ring's event loop has terminated");
        }
    }

    private void submitOnLoop(RingOp<?> op, String kind, byte opcode, int fd, long off, long addr, int len,
                              int opFlags, Object pinned, boolean internal, Completion completion) {
        if ((shuttingDown && !internal) || op.isCancelRequested()) {
            finish(pinned);
            if (shuttingDown) {
                op.shutDown(shutdownReason);
            } else {
                op.cancelled();
            }
            return;
        }
        if (freeTop == 0) {
            waiting.add(() -> submitOnLoop(op, kind, opcode, fd, off, addr, len, opFlags, pinned, internal, completion));
            return;
        }
        int slot = free[--freeTop];
        Pending p = new Pending(op, kind, pinned, completion);
        slots[slot] = p;
        p.userData = registration.submit(new IoUringIoOps(opcode, (byte) 0, (short) 0, fd, off, addr, len, opFlags,
                slot, (short) 0, (short) 0, 0, 0L));
        op.armCancel(() -> onLoop(() -> {
            if (slots[slot] == p && !p.cancelSent) {
                p.cancelSent = true;
                sqe(OP_ASYNC_CANCEL, -1, 0, p.userData, 0, 0, 0);
            }
        }));
    }

    @Override
    public void handle(IoRegistration reg, IoEvent event) {
        IoUringIoEvent e = (IoUringIoEvent) event;
        int slot = e.data() & 0xFFFF;
        if (slot == 0) {
            return; // a cancel request's or an internal close's own completion
        }
        Pending p = slots[slot];
        slots[slot] = null;
        free[freeTop++] = slot;
        if (p == null) {
            return;
        }
        int res = e.res();
        try {
            if (res < 0 && -res == Errno.ECANCELED && shuttingDown) {
                p.op.shutDown(shutdownReason);
            } else {
                if (res < 0) {
                    metrics.failed(p.kind, -res);
                }
                p.completion.onResult(res);
            }
        } catch (Throwable t) {
            p.op.fail(t);
        } finally {
            finish(p.pinned);
            metrics.completed();
        }
        Runnable w = waiting.poll();
        if (w != null) {
            w.run();
        }
    }

    private void finish(Object pinned) {
        inFlight.decrementAndGet();
        if (pinned instanceof CleanableDirectBuffer c) {
            c.clean(); // only now: the kernel is done with it
        }
    }

    private void sqe(byte opcode, int fd, long off, long addr, int len, int opFlags, int slot) {
        registration.submit(new IoUringIoOps(opcode, (byte) 0, (short) 0, fd, off, addr, len, opFlags,
                slot, (short) 0, (short) 0, 0, 0L));
    }

    private void closeQuietly(int fd) {
        sqe(OP_CLOSE, fd, 0, 0, 0, 0, 0);
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
