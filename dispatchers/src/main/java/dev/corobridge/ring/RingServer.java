package dev.corobridge.ring;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * A TCP server on a {@link RingPool}: each accepted connection lives on one ring (Netty spreads
 * them over the pool's loops) and is handed to {@code onAccept} on that ring's thread as a
 * {@link RingConnection}. Keep {@code onAccept} short: start the session on a virtual thread
 * ({@code Thread.ofVirtual().start(...)}) or, from Kotlin, use {@code pool.serve(...)} which runs a
 * suspending session as a coroutine on the connection's ring.
 *
 * <p><b>Closing.</b> {@link #close()} stops accepting and closes every connection it accepted: their
 * waiting reads and writes fail with {@code EBADF} (see {@link RingConnection}). A connection the
 * kernel accepted while the server was closing is closed without reaching {@code onAccept}, so none
 * outlives the server. The pool's shutdown closes its servers too (an adopted group's loops keep
 * running, and would otherwise keep accepting).
 *
 * <p><b>Thread-safety.</b> Safe from any thread.
 */
public final class RingServer implements AutoCloseable {

    private final RingPool pool;
    private final Set<RingConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile Channel serverChannel;
    private volatile boolean closed;

    private RingServer(RingPool pool) {
        this.pool = pool;
    }

    /**
     * Binds {@code address} (port 0: any free port) and starts accepting.
     *
     * @throws RingIoException if the address cannot be bound (e.g. EADDRINUSE)
     */
    public static RingServer bind(RingPool pool, InetSocketAddress address, Consumer<RingConnection> onAccept)
            throws RingIoException, InterruptedException {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(onAccept, "onAccept");
        if (pool.isShutdown()) {
            throw new IllegalStateException("RingPool '" + pool.name() + "' is shut down");
        }
        Class<? extends ServerChannel> type = pool.transport() == Transport.IO_URING
                ? IoUringServerSocketChannel.class : NioServerSocketChannel.class;
        RingServer server = new RingServer(pool); // before bind: a connection may be accepted at once
        ServerBootstrap b = new ServerBootstrap()
                .group(pool.group())
                .channel(type)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        server.accepted(ch, onAccept);
                    }
                });
        ChannelFuture bound = b.bind(address).await();
        if (!bound.isSuccess()) {
            String m = String.valueOf(bound.cause().getMessage());
            RingIoException e = new RingIoException("bind", address.toString(), m.contains("in use") ? 98 : 5);
            e.initCause(bound.cause());
            throw e;
        }
        server.serverChannel = bound.channel();
        pool.remember(server);
        return server;
    }

    private void accepted(SocketChannel ch, Consumer<RingConnection> onAccept) {
        if (closed || pool.isShutdown()) {
            ch.close(); // accepted by the kernel while we were closing: never handed out
            return;
        }
        RingConnection c = new RingConnection(pool.ringOf(ch.eventLoop()), ch);
        connections.add(c);
        ch.closeFuture().addListener(f -> connections.remove(c));
        if (closed) {
            connections.remove(c); // close() may have taken its snapshot before the add
            c.submitClose();
            return;
        }
        // After registration completes, not inside initChannel: a session that starts inline here
        // (a ring coroutine) would read from a channel not yet registered.
        ch.eventLoop().execute(() -> {
            if (c.isOpen()) {
                onAccept.accept(c);
            }
        });
    }

    /** The bound address (with the real port when bound to port 0). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Connections accepted and still open. */
    public int connections() {
        return connections.size();
    }

    /** Whether {@link #close()} was called (or the pool shut down). */
    public boolean isClosed() {
        return closed;
    }

    /** Stops accepting and closes every accepted connection; waits at most 10 s for the listening socket. */
    @Override
    public void close() {
        closeNow().awaitUninterruptibly(10_000);
    }

    /** Stops accepting and closes every connection, without waiting (the pool's shutdown). */
    ChannelFuture closeNow() {
        closed = true; // before the snapshot below: a connection accepted from now on closes itself
        ChannelFuture f = serverChannel.close();
        for (RingConnection c : Set.copyOf(connections)) {
            c.submitClose();
        }
        pool.forget(this);
        return f;
    }

    @Override
    public String toString() {
        return "RingServer[" + serverChannel.localAddress() + ", " + connections.size() + " connections]";
    }
}
