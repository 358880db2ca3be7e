package dev.corobridge.ring;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Objects;

/**
 * The Netty plumbing of a pool's sockets: the channel types of its transport, the client
 * {@linkplain #connect connect}, the server bootstrap that {@link RingServer} binds with, and the
 * translation of a failed connect or bind into a {@link RingIoException}.
 *
 * <p><b>Algorithm (connect).</b> An unresolved address (a host name) is resolved first, on a virtual
 * thread of its own: the JDK's resolution blocks, and on a ring's thread it would hold up every
 * operation of the ring; a name that cannot be resolved fails the connect with {@code EIO}, its
 * message saying so. The connection is made from the ring {@link RingPlacement#next()}
 * picks and stays on it. The {@link RingOp} is withdrawable until the channel is connected: its
 * {@code cancel()} decides at once and closes the channel, which aborts the kernel's connect (or
 * closes what it made). When the connect completes, on the ring's thread, exactly one of these
 * happens: the pool is shutting down (the channel is closed, the operation settles as shut down;
 * the pool's shutdown also settles every connect still in flight so and closes its channel, since
 * a loop that stops with a connect in it may never report its end);
 * {@code cancel()} withdrew it (the channel is closed, never handed out: its awaiter has left); it
 * connected (the operation succeeds with a {@link RingConnection}, which registers with the pool);
 * it failed (a {@link RingIoException} with the errno Netty reports, {@code EIO} if none). Once
 * {@code cancel()} has withdrawn the operation, a failure or shutdown reported after it settles
 * nothing (the operation is cancelled, and that cancel() returned {@code true}); the channel is
 * closed whatever the outcome, so nothing leaks.
 *
 * <p><b>Memory effects.</b> The {@link RingConnection} is made on the ring's thread and handed out
 * by completing the operation, so what that thread did to set it up <i>happens-before</i> the
 * awaiter sees it (as for every {@link RingOp} value).
 *
 * <p><b>Thread-safety.</b> Safe from any thread; immutable after construction.
 */
final class RingConnector {

    private final RingPool pool;
    private final RingPlacement placement;
    private final IoEventLoopGroup group;
    private final Class<? extends Channel> socketType;
    private final Class<? extends ServerChannel> serverSocketType;

    RingConnector(RingPool pool, RingPlacement placement, IoEventLoopGroup group, Transport transport) {
        this.pool = pool;
        this.placement = placement;
        this.group = group;
        boolean uring = transport == Transport.IO_URING;
        this.socketType = uring ? IoUringSocketChannel.class : NioSocketChannel.class;
        this.serverSocketType = uring ? IoUringServerSocketChannel.class : NioServerSocketChannel.class;
    }

    /** Connects to {@code address}; see the class comment. */
    RingOp<RingConnection> connect(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        RingOp<RingConnection> op = new RingOp<RingConnection>("connect", address.toString())
                .releasingWith(RingConnection::closeAsync);
        if (pool.isShutdown()) {
            op.shutDown(pool.shutDownReason());
            return op;
        }
        op.startWithdrawable(); // until connected, cancel() decides at once
        if (address.isUnresolved()) {
            // The JDK's name resolution blocks: never on a ring's thread (Netty's default resolver
            // would run it there, and every operation of that ring would wait for the answer).
            Thread.ofVirtual().name("corobridge-resolve-" + address.getHostString()).start(() -> resolveAndConnect(op, address));
        } else {
            connect(op, address);
        }
        return op;
    }

    /** A resolving thread: the host's address, then the connect; a cancel() meanwhile has decided already. */
    private void resolveAndConnect(RingOp<RingConnection> op, InetSocketAddress address) {
        InetSocketAddress resolved;
        try {
            resolved = new InetSocketAddress(InetAddress.getByName(address.getHostString()), address.getPort());
        } catch (UnknownHostException | SecurityException e) {
            RingIoException failure = new RingIoException("connect", address.toString(), Errno.EIO,
                    "the host name could not be resolved (" + e.getMessage() + ")");
            failure.initCause(e);
            op.fail(failure); // settles nothing if cancel() withdrew it meanwhile
            return;
        }
        if (op.isDone()) {
            return; // withdrawn while the name was resolved
        }
        if (pool.isShutdown()) {
            op.shutDown(pool.shutDownReason());
            return;
        }
        connect(op, resolved);
    }

    /** Connects {@code op}, withdrawable already, to a resolved {@code address}. */
    private void connect(RingOp<RingConnection> op, InetSocketAddress address) {
        Ring ring = placement.next();
        Bootstrap b = new Bootstrap()
                .group(ring.eventLoop())
                .channel(socketType)
                .option(ChannelOption.AUTO_READ, false)
                .handler(new ChannelInboundHandlerAdapter());
        ChannelFuture connecting = b.connect(address);
        op.armCancel(() -> {
            connecting.channel().close(); // aborts the connect in the kernel (or closes what it made)
            return false;
        });
        pool.rememberConnect(op, connecting.channel());
        connecting.addListener((ChannelFutureListener) f -> {
            pool.forgetConnect(op);
            if (f.isSuccess() && pool.isShutdown()) {
                f.channel().close(); // connected while the pool was shutting down: not handed out
                op.shutDown(pool.shutDownReason());
            } else if (f.isSuccess() && !op.commit()) {
                f.channel().close(); // connected after cancel() withdrew it: its awaiter has left
            } else if (f.isSuccess()) {
                op.succeed(new RingConnection(ring, f.channel()));
            } else if (pool.isShutdown()) {
                op.shutDown(pool.shutDownReason()); // its channel closed by the shutdown (settled by it already, as a rule)
            } else {
                op.fail(socketFailure("connect", address, NativeErrors.errnoOf(f.cause()), f.cause()));
            }
        });
    }

    /**
     * A server bootstrap on all the pool's loops (Netty spreads accepted connections over them),
     * with the transport's server channel type; {@code childInit} sets up each accepted channel.
     */
    ServerBootstrap serverBootstrap(ChannelInitializer<SocketChannel> childInit) {
        return new ServerBootstrap()
                .group(group)
                .channel(serverSocketType)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(childInit);
    }

    /**
     * A failed connect or bind as a typed I/O error: {@code errno} as Netty reported it, {@code EIO}
     * when it reported none ({@code 0}); {@code cause} is kept as the cause.
     */
    static RingIoException socketFailure(String kind, InetSocketAddress address, int errno, Throwable cause) {
        RingIoException e = new RingIoException(kind, address.toString(), errno != 0 ? errno : Errno.EIO);
        e.initCause(cause);
        return e;
    }
}
