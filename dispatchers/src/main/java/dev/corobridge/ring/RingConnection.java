package dev.corobridge.ring;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.unix.Errors;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A TCP connection on a {@link Ring}, read and written in the style of a blocking socket but
 * without blocking a thread: from a virtual thread {@code while ((n = conn.readAsync(buf.clear()).join()) > 0)
 * conn.writeAsync(buf, n).join();}, from Kotlin the same loop with suspending {@code read}/{@code write}.
 *
 * <p><b>Model.</b> The connection is a Netty channel (io_uring socket channel; NIO in the fallback)
 * with auto-read off: a {@link #readAsync} asks the channel for data only when nothing is buffered, so a
 * slow reader applies back-pressure to its peer. At most one read may be pending at a time. Bytes
 * that arrive with no read pending wait in the connection until the next read, never in a buffer
 * whose read was cancelled.
 *
 * <p>{@link #readAsync(ByteBuffer)} reads into {@code [position, limit)} of {@code buf} and moves its
 * position by the count, like {@link RingFile#readAsync} and {@code ReadableByteChannel.read} (so
 * clear the buffer before reusing it). {@link #writeAsync(ByteBuffer, int)} sends {@code buf[0, n)},
 * copied at call time, and completes when flushed to the socket; it leaves position and limit alone.
 *
 * <p><b>End, reset and close: every operation settles.</b> What the connection learns — the peer's
 * end (FIN), a reset, a local close, the pool's shutdown — is recorded when Netty reports it, whether
 * or not a read is waiting at that moment, and every later operation is decided from that record.
 * So no read or write waits for an event that already went by. The outcomes, in order of precedence:
 * <table>
 * <caption>outcome of read and write, by what happened</caption>
 * <tr><th>what happened</th><th>{@code read}</th><th>{@code write}</th></tr>
 * <tr><td>the pool shut down</td><td colspan="2">{@link dev.corobridge.bridge.ContextShutdownException}</td></tr>
 * <tr><td>{@link #closeAsync()} or {@link #abortAsync()} was called (here, by a {@link RingServer#close()}, or
 *     while the operation waited)</td><td colspan="2">{@link RingIoException} {@code EBADF}</td></tr>
 * <tr><td>bytes already received</td><td>the bytes</td><td>—</td></tr>
 * <tr><td>the peer reset the connection (RST, e.g. an {@link #abortAsync()} or {@code SO_LINGER 0}
 *     close), seen by a read or by a write</td><td colspan="2">{@link RingIoException}
 *     {@code ECONNRESET}, every time (sticky)</td></tr>
 * <tr><td>this side called {@link #shutdownOutputAsync()}</td><td>(reads go on)</td><td>{@code EPIPE}</td></tr>
 * <tr><td>the peer closed or shut down its output (FIN)</td><td>-1, every time (sticky)</td><td>sent
 *     (half-close: the peer may still read; if it had closed fully, a later write sees the reset)</td></tr>
 * <tr><td>the channel was closed by the transport for any other reason</td><td colspan="2">{@code EBADF}</td></tr>
 * </table>
 * Bytes received before a reset are delivered before the {@code ECONNRESET}; bytes the kernel still
 * held when a <i>write</i> discovered the reset may be lost (as with a plain socket). A reset does not
 * close the connection: {@link #isOpen()} stays true until {@link #closeAsync()} (or {@link #close()}), which must still be
 * called (it is idempotent, and {@code RingPool.serve} calls it for you).
 *
 * <p><b>Cancellation</b> ({@link RingOp#cancel()}). A read waiting for data is withdrawn at once; the
 * bytes that arrive later wait for the next read. A write is withdrawn at once until it reaches the
 * ring; once the transport is sending it, cancelling it <i>aborts the connection</i> if the bytes are
 * not all sent yet (the peer sees a reset: the stream was cut mid-write, and nothing sensible can
 * follow on it), and the write ends cancelled — or with its count, if it was sent first. Later
 * operations then fail with {@code EBADF}, as after {@link #abortAsync()}.
 *
 * <p><b>Thread-safety.</b> Safe from any thread; state is confined to the ring's thread.
 */
public final class RingConnection implements AutoCloseable {

    private final Ring ring;
    private final Channel channel;
    private final String name;

    // Any thread: decided at call time, so an operation called after close() fails at once.
    private volatile boolean closeCalled;
    private volatile String shutdownReason;
    /** How many times something was recorded (bytes, end, failure); package-private, see {@link #recorded()}. */
    private volatile int recorded;

    // Ring-thread state: the record every operation is decided from.
    private final ArrayDeque<ByteBuf> inbound = new ArrayDeque<>();
    private boolean inputEnded;
    private int failureErrno;          // 0: none; else the first failure (a reset: ECONNRESET), sticky
    private Throwable failureCause;
    private boolean outputShut;
    /** The last write handed to the transport (ring thread): a half-close waits for it. */
    private ChannelFuture lastWrite;
    private RingOp<Integer> pendingRead;
    private ByteBuffer pendingBuf;

    RingConnection(Ring ring, Channel channel) {
        this.ring = ring;
        this.channel = channel;
        this.name = String.valueOf(channel.remoteAddress());
        channel.config().setAutoRead(false);
        channel.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        channel.pipeline().addLast(new Inbound());
        ring.getPool().remember(this);
    }

    /** The ring this connection lives on. */
    public Ring getRing() {
        return ring;
    }

    public SocketAddress getRemoteAddress() {
        return channel.remoteAddress();
    }

    public SocketAddress getLocalAddress() {
        return channel.localAddress();
    }

    /**
     * Whether the connection is still open: false once {@link #closeAsync()} or {@link #abortAsync()} was
     * called or the transport closed it. A reset or the peer's end alone does not close it.
     */
    public boolean isOpen() {
        return !closeCalled && shutdownReason == null && channel.isOpen();
    }

    /**
     * Closes the connection and waits for the close ({@link AutoCloseable}: try-with-resources from
     * Java). Refused on threads that must not block — the pump, and every thread of this
     * connection's pool — with an {@link IllegalStateException} naming {@link #closeAsync()}, the
     * form to use there (from Kotlin: {@code closeAsync().await()}). Idempotent.
     *
     * @throws IllegalStateException on the pump or a ring thread
     * @throws dev.corobridge.bridge.ContextShutdownException if the pool shut down first
     */
    @Override
    public void close() throws java.io.IOException {
        BlockingClose.closeAndWait(ring, this, this::closeAsync);
    }

    /** Aborts the connection: the peer sees a reset ({@code SO_LINGER} 0), not a clean end. */
    public RingOp<Void> abortAsync() {
        if (!closeCalled) {
            try {
                channel.config().setOption(ChannelOption.SO_LINGER, 0);
            } catch (RuntimeException ignored) {
                // already closed: close() below settles it
            }
        }
        return closeAsync();
    }

    @Override
    public String toString() {
        return "RingConnection[" + name + " on " + ring.getName() + "]";
    }

    // ------------------------------------------------------------------ operations (each departs when called)

    /**
     * Reads up to {@code buf.remaining()} bytes into {@code buf} at its position, as
     * {@link RingFile#readAsync} and {@code ReadableByteChannel.read} do: the count (the position has
     * moved by it), 0 if the buffer has no room, or -1 at end of stream.
     */
    public RingOp<Integer> readAsync(ByteBuffer buf) {
        Objects.requireNonNull(buf, "buf");
        if (buf.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only buffer");
        }
        RingOp<Integer> op = new RingOp<>("read", name);
        if (settledAtCallTime(op)) {
            return op;
        }
        onRing(() -> {
            if (pendingRead != null) {
                op.fail(new IllegalStateException("a read is already pending on " + this + ": one at a time"));
                return;
            }
            if (!op.startWithdrawable()) {
                return; // cancel() withdrew it on its way here: cancelled already
            }
            if (!settleRead(op, buf)) {
                pendingRead = op;
                pendingBuf = buf;
                // Waiting for data is undoable: cancel() decides at once, and this frees the slot.
                op.armCancel(() -> {
                    onRing(() -> {
                        if (pendingRead == op) {
                            pendingRead = null;
                            pendingBuf = null;
                            op.cancelled(); // later bytes wait in the connection, not in this buffer
                        }
                    }, null);
                    return false;
                });
                channel.read();
            }
        }, op);
        return op;
    }

    /** Sends {@code buf[0, n)}; completes with {@code n} when flushed. */
    public RingOp<Integer> writeAsync(ByteBuffer buf, int n) {
        Objects.requireNonNull(buf, "buf");
        if (n < 0 || n > buf.capacity()) {
            throw new IllegalArgumentException("n must be in 0.." + buf.capacity() + ", was " + n);
        }
        RingOp<Integer> op = new RingOp<>("write", name);
        if (settledAtCallTime(op)) {
            return op;
        }
        ByteBuf out = channel.alloc().directBuffer(n);
        out.writeBytes(buf.duplicate().clear().limit(n)); // copied now: the caller's buffer is free at once
        boolean queued = onRing(() -> {
            if (settledAtCallTime(op) || !op.start()) {
                out.release(); // closed, shut down, or withdrawn by cancel() on its way here
            } else if (failureErrno != 0) {
                out.release();
                op.fail(failure("write"));
            } else if (outputShut) {
                out.release();
                op.fail(new RingIoException("write", name, Errno.EPIPE));
            } else if (!channel.isActive()) {
                out.release();
                op.failErrno(Errno.EBADF);
            } else {
                io.netty.channel.ChannelFuture sending = channel.writeAndFlush(out);
                lastWrite = sending;
                // In the transport's hands: cancel() aborts the connection if the bytes are not all
                // sent yet (the stream is cut mid-write: nothing sensible can follow on it).
                op.armCancel(() -> {
                    onRing(() -> {
                        if (!sending.isDone()) {
                            abortAsync();
                        }
                    }, null);
                    return false;
                });
                sending.addListener(done -> {
                    if (done.isSuccess()) {
                        op.succeed(n); // sent before the cancellation took effect: the real result
                    } else if (op.isCancelRequested()) {
                        op.cancelled();
                    } else {
                        writeFailed(op, done.cause());
                    }
                });
            }
        }, op);
        if (!queued) {
            out.release();
        }
        return op;
    }

    /**
     * Half-close: no more writes from this side (those called later fail with {@code EPIPE}); the
     * peer reads the bytes of the writes called before it, then the end. It takes effect once those
     * writes are sent (a transport's own half-close fails the writes it still holds).
     */
    public RingOp<Void> shutdownOutputAsync() {
        RingOp<Void> op = new RingOp<>("shutdown", name);
        if (settledAtCallTime(op)) {
            return op;
        }
        if (!(channel instanceof DuplexChannel d)) {
            op.fail(new UnsupportedOperationException("not a duplex channel: " + channel));
            return op;
        }
        onRing(() -> {
            if (settledAtCallTime(op) || !op.start()) {
                return;
            }
            outputShut = true; // writes called after this fail with EPIPE, whatever the channel says
            ChannelFuture before = lastWrite;
            if (before == null || before.isDone()) {
                shutDownOutput(d, op);
            } else {
                // Netty's half-close fails the writes its outbound buffer still holds (on io_uring,
                // a write is in the kernel when the call returns): it waits for the last write
                // called before it. Listeners run on the ring's thread, in order.
                before.addListener(sent -> shutDownOutput(d, op));
            }
        }, op);
        return op;
    }

    /** Ring thread: the half-close itself, once the writes called before it are sent (or failed). */
    private void shutDownOutput(DuplexChannel d, RingOp<Void> op) {
        lastWrite = null;
        d.shutdownOutput().addListener(done -> {
            if (done.isSuccess() || failureErrno != 0) {
                op.succeed(null); // after a reset there is nothing left to shut
            } else {
                op.fail(translate("shutdown", done.cause()));
            }
        });
    }

    /** Closes the connection (a clean FIN). Idempotent; a read or write still waiting fails with {@code EBADF}. */
    public RingOp<Void> closeAsync() {
        RingOp<Void> op = RingOp.uncancellable("close", name);
        closeCalled = true; // from now on every new operation fails with EBADF
        boolean queued = onRing(() -> {
            settlePendingRead(); // a read still waiting fails with EBADF now, not at deregistration
            releaseInbound();
            channel.close().addListener(done -> op.succeed(null)); // closing twice is fine
        }, null);
        if (!queued) {
            op.succeed(null); // the ring is gone, and its channels with it
        }
        return op;
    }

    /**
     * The pool is shutting down: a read or write waiting (or called later) fails with a
     * {@link dev.corobridge.bridge.ContextShutdownException}; the channel is closed.
     */
    void shutDownNow(String reason) {
        markShutDown(reason);
        onRing(() -> {
            settlePendingRead();
            releaseInbound();
            channel.close();
        }, null); // rejected: the loop is stopping and closes the channel itself; handlerRemoved settles
    }

    /**
     * Marks the connection shut down without closing it yet: the pool marks all its connections
     * first, so that one closing cannot show its peer in the same pool an end instead of the shutdown.
     */
    void markShutDown(String reason) {
        if (shutdownReason == null) {
            shutdownReason = reason;
        }
    }

    /** Whether a read is waiting for data (ring thread's view; for tests). */
    boolean readPending() {
        return pendingRead != null;
    }

    /**
     * How many times the connection recorded something — bytes, the peer's end, a failure — whether or
     * not a read was pending (for tests: "the event has been taken in" without sleeping).
     */
    int recorded() {
        return recorded;
    }

    Channel channel() {
        return channel;
    }

    // ------------------------------------------------------------------ the record, ring-thread side

    /** Settles {@code op} if the connection was closed or shut down; decided on any thread. */
    private boolean settledAtCallTime(RingOp<?> op) {
        String reason = shutdownReason;
        if (reason != null) {
            op.shutDown(reason);
            return true;
        }
        if (closeCalled) {
            op.failErrno(Errno.EBADF);
            return true;
        }
        return false;
    }

    /** Decides a read from the record; {@code false} if it must wait for the channel. */
    private boolean settleRead(RingOp<Integer> op, ByteBuffer buf) {
        if (settledAtCallTime(op)) {
            return true;
        }
        if (!buf.hasRemaining()) {
            if (op.commit()) {
                op.succeed(0); // no room: nothing to read into (as ReadableByteChannel.read)
            }
        } else if (!inbound.isEmpty()) {
            if (op.commit()) {
                op.succeed(drainInto(buf));
            } // else cancel() withdrew the read: the bytes stay for the next one
        } else if (failureErrno != 0) {
            op.fail(failure("read"));
        } else if (inputEnded) {
            op.succeed(-1);
        } else if (!channel.isActive()) {
            op.failErrno(Errno.EBADF); // closed under us, neither by the peer's end nor by a reset
        } else {
            return false;
        }
        return true;
    }

    /** Something was recorded: settle the waiting read if the record decides it, else keep asking. */
    private void settlePendingRead() {
        RingOp<Integer> op = pendingRead;
        if (op == null) {
            return;
        }
        ByteBuffer buf = pendingBuf;
        // Clear the pending state BEFORE settling: settling may resume a ring coroutine inline,
        // which may issue the next read right away.
        pendingRead = null;
        pendingBuf = null;
        if (!settleRead(op, buf)) {
            pendingRead = op;
            pendingBuf = buf;
            channel.read(); // nothing decided yet: keep asking
        }
    }

    private void recordFailure(int errno, Throwable cause) {
        assert ring.isCurrentThread() : "RingConnection.recordFailure on thread '" + Thread.currentThread().getName()
                + "'; a connection's end is recorded on its ring's thread only";
        if (failureErrno == 0) {
            failureErrno = errno;
            failureCause = cause;
        }
        recorded++; // ring thread only (asserted above): a plain increment of the volatile is enough
    }

    private void recordEnd() {
        assert ring.isCurrentThread() : "RingConnection.recordEnd on thread '" + Thread.currentThread().getName()
                + "'; a connection's end is recorded on its ring's thread only";
        inputEnded = true;
        recorded++;
    }

    /** A fresh exception per operation (exceptions travel, and gather suppressed traces on the way). */
    private RingIoException failure(String operation) {
        RingIoException e = new RingIoException(operation, name, failureErrno);
        if (failureCause != null) {
            e.initCause(failureCause);
        }
        return e;
    }

    private void writeFailed(RingOp<Integer> op, Throwable cause) {
        if (settledAtCallTime(op)) {
            return;
        }
        int errno = errnoOf(cause, true);
        if (errno == Errno.ECONNRESET || (errno == Errno.EPIPE && !outputShut)) {
            // The kernel says reset (ECONNRESET once, EPIPE after): the peer is gone. Recorded, so that
            // reads and writes from now on say so too, and a waiting read is not left hanging.
            recordFailure(Errno.ECONNRESET, cause);
            op.fail(failure("write"));
            settlePendingRead();
        } else if (failureErrno != 0) {
            op.fail(failure("write"));
        } else if (outputShut && (errno == Errno.EPIPE || errno == Errno.EBADF)) {
            op.fail(new RingIoException("write", name, Errno.EPIPE));
        } else {
            op.fail(translate("write", cause));
        }
    }

    private void releaseInbound() {
        ByteBuf b;
        while ((b = inbound.poll()) != null) {
            b.release();
        }
    }

    private int drainInto(ByteBuffer buf) {
        int written = 0;
        while (buf.hasRemaining() && !inbound.isEmpty()) {
            ByteBuf head = inbound.peek();
            int k = Math.min(head.readableBytes(), buf.remaining());
            head.getBytes(head.readerIndex(), buf.duplicate().limit(buf.position() + k));
            buf.position(buf.position() + k); // as ReadableByteChannel.read: the position moves by the count
            head.skipBytes(k);
            written += k;
            if (!head.isReadable()) {
                inbound.poll().release();
            }
        }
        return written;
    }

    /**
     * The errno a failure of this established connection stands for: the native one where the
     * transport recorded it (io_uring always does), else by type ({@link NativeErrors}). The JDK's
     * NIO transport (the fallback) reports a reset read as a plain {@code SocketException} and a
     * refused write as a plain {@code IOException}, without the errno: on an established connection
     * the kernel refuses a write only when the connection is broken, so such a write failure stands
     * for {@code EPIPE} (which {@link #writeFailed} records as the reset it is).
     */
    private static int errnoOf(Throwable cause, boolean writing) {
        int errno = NativeErrors.errnoOf(cause);
        if (errno != 0) {
            return errno;
        }
        if (NativeErrors.isJdkConnectionReset(cause)) {
            return Errno.ECONNRESET;
        }
        return writing && cause instanceof IOException ? Errno.EPIPE : 0;
    }

    private Throwable translate(String operation, Throwable cause) {
        int errno = errnoOf(cause, false);
        if (errno == 0) {
            return cause;
        }
        RingIoException r = new RingIoException(operation, name, errno);
        r.initCause(cause);
        return r;
    }

    /**
     * Runs {@code r} on the ring (inline if already there). Returns {@code false} if the ring has
     * shut down; {@code op}, if given, then settles with a shutdown exception.
     */
    private boolean onRing(Runnable r, RingOp<?> op) {
        if (channel.eventLoop().inEventLoop()) {
            r.run();
            return true;
        }
        try {
            channel.eventLoop().execute(r);
            return true;
        } catch (java.util.concurrent.RejectedExecutionException e) {
            if (op != null) {
                op.shutDown("the connection's ring has shut down");
            }
            return false;
        }
    }

    /** Netty side: records what arrives, whether or not a read is waiting, and settles the waiting read. */
    private final class Inbound extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b && b.isReadable() && !closeCalled && shutdownReason == null) {
                inbound.add(b);
                recorded++;
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            settlePendingRead();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof ChannelInputShutdownEvent) {
                recordEnd();
                settlePendingRead();
            }
            ReferenceCountUtil.release(evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            settlePendingRead(); // inactive: the record decides (buffered bytes, reset, end, or EBADF)
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            // The channel is gone (closed and deregistered). Bytes nobody has read yet stay readable
            // (a reset found by a write closes the channel under a reader), but not in pooled memory.
            if (closeCalled || shutdownReason != null) {
                releaseInbound();
            } else {
                ArrayDeque<ByteBuf> copies = new ArrayDeque<>();
                ByteBuf b;
                while ((b = inbound.poll()) != null) {
                    copies.add(Unpooled.copiedBuffer(b));
                    b.release();
                }
                inbound.addAll(copies);
            }
            settlePendingRead();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            int errno = errnoOf(cause, false);
            recordFailure(errno == 0 || errno == Errno.EBADF ? Errno.EIO : errno, cause);
            settlePendingRead();
        }
    }
}
