package dev.corobridge.ring;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * A TCP connection on a {@link Ring}, read and written in the style of a blocking socket but
 * without blocking a thread: from a virtual thread {@code while ((n = conn.read(buf).await()) > 0)
 * conn.write(buf, n).await();}, from Kotlin the same loop with suspending {@code read}/{@code write}.
 *
 * <p><b>Model.</b> The connection is a Netty channel (io_uring socket channel; NIO in the fallback)
 * with auto-read off: a {@link #read} asks the channel for data only when nothing is buffered, so a
 * slow reader applies back-pressure to its peer. At most one read may be pending at a time. Bytes
 * that arrive with no read pending wait in the connection until the next read, never in a buffer
 * whose read was cancelled.
 *
 * <p>{@link #read(ByteBuffer)} and {@link #write(ByteBuffer, int)} use absolute indexes like the C
 * calls they mirror: read fills {@code buf} from index 0 (up to its capacity) and returns the count;
 * write sends {@code buf[0, n)}, copied at call time, and completes when flushed to the socket.
 * Positions and limits are untouched.
 *
 * <p><b>End and errors.</b> read returns -1 once the peer closed (or shut down) its side and all
 * data was read. A reset connection fails reads and writes with a {@link RingIoException}
 * ({@code ECONNRESET}); an operation on a closed connection fails with {@code EBADF}.
 *
 * <p><b>Thread-safety.</b> Safe from any thread; state is confined to the ring's thread.
 */
public final class RingConnection {

    private final Ring ring;
    private final Channel channel;
    private final String name;

    // Ring-thread state.
    private final ArrayDeque<ByteBuf> inbound = new ArrayDeque<>();
    private boolean eof;
    private Throwable failure;
    private RingOp<Integer> pendingRead;
    private ByteBuffer pendingBuf;

    RingConnection(Ring ring, Channel channel) {
        this.ring = ring;
        this.channel = channel;
        this.name = String.valueOf(channel.remoteAddress());
        channel.config().setAutoRead(false);
        channel.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        channel.pipeline().addLast(new Inbound());
    }

    /** The ring this connection lives on. */
    public Ring ring() {
        return ring;
    }

    public SocketAddress remoteAddress() {
        return channel.remoteAddress();
    }

    public SocketAddress localAddress() {
        return channel.localAddress();
    }

    /** Whether the connection is still open. */
    public boolean isOpen() {
        return channel.isOpen();
    }

    /** Reads up to {@code buf.capacity()} bytes into {@code buf} from index 0: the count, or -1 at end. */
    @kotlin.Deprecated(message = "Kotlin: use the suspending read", level = kotlin.DeprecationLevel.HIDDEN)
    public RingOp<Integer> read(ByteBuffer buf) {
        return submitRead(buf);
    }

    /** Sends {@code buf[0, n)}; completes with {@code n} when flushed. */
    @kotlin.Deprecated(message = "Kotlin: use the suspending write", level = kotlin.DeprecationLevel.HIDDEN)
    public RingOp<Integer> write(ByteBuffer buf, int n) {
        return submitWrite(buf, n);
    }

    /** Half-close: no more writes from this side; the peer's reads then see the end. */
    @kotlin.Deprecated(message = "Kotlin: use the suspending shutdownOutput", level = kotlin.DeprecationLevel.HIDDEN)
    public RingOp<Void> shutdownOutput() {
        return submitShutdownOutput();
    }

    RingOp<Void> submitShutdownOutput() {
        RingOp<Void> op = new RingOp<>("shutdown", name);
        if (channel instanceof DuplexChannel d) {
            settleWith(op, d.shutdownOutput());
        } else {
            op.fail(new UnsupportedOperationException("not a duplex channel: " + channel));
        }
        return op;
    }

    /** Closes the connection (a clean FIN). */
    @kotlin.Deprecated(message = "Kotlin: use the suspending close", level = kotlin.DeprecationLevel.HIDDEN)
    public RingOp<Void> close() {
        return submitClose();
    }

    /** Aborts the connection: the peer sees a reset ({@code SO_LINGER} 0), not a clean end. */
    public RingOp<Void> abort() {
        try {
            channel.config().setOption(ChannelOption.SO_LINGER, 0);
        } catch (RuntimeException ignored) {
            // already closed: close() below settles it
        }
        return submitClose();
    }

    @Override
    public String toString() {
        return "RingConnection[" + name + " on " + ring.name() + "]";
    }

    // ------------------------------------------------------------------ shared with the Kotlin face

    RingOp<Integer> submitRead(ByteBuffer buf) {
        Objects.requireNonNull(buf, "buf");
        if (buf.isReadOnly()) {
            throw new IllegalArgumentException("read into a read-only buffer");
        }
        RingOp<Integer> op = new RingOp<>("read", name);
        onRing(() -> {
            if (pendingRead != null) {
                op.fail(new IllegalStateException("a read is already pending on " + this + ": one at a time"));
                return;
            }
            if (op.isCancelRequested()) {
                op.cancelled();
            } else if (!inbound.isEmpty()) {
                op.succeed(drainInto(buf));
            } else if (failure != null) {
                op.fail(failure);
            } else if (eof || !channel.isActive()) {
                op.succeed(-1);
            } else {
                pendingRead = op;
                pendingBuf = buf;
                op.armCancel(() -> onRing(() -> {
                    if (pendingRead == op) {
                        pendingRead = null;
                        pendingBuf = null;
                        op.cancelled(); // later bytes wait in the connection, not in this buffer
                    }
                }, op));
                channel.read();
            }
        }, op);
        return op;
    }

    RingOp<Integer> submitWrite(ByteBuffer buf, int n) {
        Objects.requireNonNull(buf, "buf");
        if (n < 0 || n > buf.capacity()) {
            throw new IllegalArgumentException("n must be in 0.." + buf.capacity() + ", was " + n);
        }
        RingOp<Integer> op = new RingOp<>("write", name);
        if (!channel.isOpen()) {
            op.failErrno(Errno.EBADF);
            return op;
        }
        ByteBuf out = channel.alloc().directBuffer(n);
        out.writeBytes(buf.duplicate().clear().limit(n)); // copied now: the caller's buffer is free at once
        ChannelFuture f = channel.writeAndFlush(out);
        f.addListener(done -> {
            if (done.isSuccess()) {
                op.succeed(n);
            } else {
                op.fail(translate("write", done.cause()));
            }
        });
        return op;
    }

    RingOp<Void> submitClose() {
        RingOp<Void> op = new RingOp<>("close", name);
        settleWith(op, channel.close());
        return op;
    }

    /** Whether a read is waiting for data (ring thread's view; for tests). */
    boolean readPending() {
        return pendingRead != null;
    }

    // ------------------------------------------------------------------ ring-thread internals

    private int drainInto(ByteBuffer buf) {
        int written = 0;
        int cap = buf.capacity();
        while (written < cap && !inbound.isEmpty()) {
            ByteBuf head = inbound.peek();
            int k = Math.min(head.readableBytes(), cap - written);
            head.getBytes(head.readerIndex(), buf.duplicate().clear().position(written).limit(written + k));
            head.skipBytes(k);
            written += k;
            if (!head.isReadable()) {
                inbound.poll().release();
            }
        }
        return written;
    }

    private void settleWith(RingOp<Void> op, ChannelFuture f) {
        f.addListener(done -> {
            if (done.isSuccess()) {
                op.succeed(null);
            } else {
                op.fail(translate(op.operation(), done.cause()));
            }
        });
    }

    private Throwable translate(String operation, Throwable cause) {
        if (cause instanceof IOException io && io.getMessage() != null) {
            String m = io.getMessage();
            int errno = m.contains("reset") ? 104 : m.contains("Broken pipe") ? 32 : m.contains("closed") ? Errno.EBADF : -1;
            if (errno > 0) {
                RingIoException r = new RingIoException(operation, name, errno);
                r.initCause(cause);
                return r;
            }
        }
        if (cause instanceof java.nio.channels.ClosedChannelException) {
            RingIoException r = new RingIoException(operation, name, Errno.EBADF);
            r.initCause(cause);
            return r;
        }
        return cause;
    }

    private void onRing(Runnable r, RingOp<?> op) {
        if (channel.eventLoop().inEventLoop()) {
            r.run();
        } else {
            try {
                channel.eventLoop().execute(r);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                op.shutDown("the connection's ring has shut down");
            }
        }
    }

    private void completePending() {
        RingOp<Integer> op = pendingRead;
        if (op == null) {
            return;
        }
        ByteBuffer buf = pendingBuf;
        if (inbound.isEmpty() && failure == null && !eof) {
            channel.read(); // nothing yet: keep asking
            return;
        }
        // Clear the pending state BEFORE settling: settling may resume a ring coroutine inline,
        // which may issue the next read right away.
        pendingRead = null;
        pendingBuf = null;
        if (!inbound.isEmpty()) {
            op.succeed(drainInto(buf));
        } else if (failure != null) {
            op.fail(failure);
        } else {
            op.succeed(-1);
        }
    }

    /** Netty side: buffers what arrives and completes the pending read. */
    private final class Inbound extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf b && b.isReadable()) {
                inbound.add(b);
            } else {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            completePending();
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            if (evt instanceof ChannelInputShutdownEvent) {
                eof = true;
                completePending();
            }
            ReferenceCountUtil.release(evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            eof = true; // buffered bytes are still readable; then -1
            completePending();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            // The channel is gone (closed and deregistered): release what nobody will read.
            ByteBuf b;
            while ((b = inbound.poll()) != null) {
                b.release();
            }
            if (pendingRead != null) {
                eof = true;
                completePending();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            failure = translate("read", cause);
            completePending();
        }
    }
}
