package dev.corobridge.ring;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.uring.IoUringServerSocketChannel;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Set;
import java.util.function.Consumer;

/**
 * A TCP server on a {@link RingPool}: each accepted connection lives on one ring (Netty spreads
 * them over the pool's loops) and is handed to {@code onAccept} on that ring's thread as a
 * {@link RingConnection}. Keep {@code onAccept} short: start the session on a virtual thread
 * ({@code Thread.ofVirtual().start(...)}) or, from Kotlin, use {@code pool.serve(...)} which runs a
 * suspending session as a coroutine on the connection's ring.
 *
 * <p>{@link #close()} stops accepting and closes every connection it accepted.
 *
 * <p><b>Thread-safety.</b> Safe from any thread.
 */
public final class RingServer implements AutoCloseable {

    private final Channel serverChannel;
    private final Set<RingConnection> connections = ConcurrentHashMap.newKeySet();

    private RingServer(Channel serverChannel) {
        this.serverChannel = serverChannel;
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
        RingServer[] self = new RingServer[1];
        ServerBootstrap b = new ServerBootstrap()
                .group(pool.group())
                .channel(type)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        RingConnection c = new RingConnection(pool.ringOf(ch.eventLoop()), ch);
                        self[0].connections.add(c);
                        ch.closeFuture().addListener(f -> self[0].connections.remove(c));
                        // After registration completes, not inside initChannel: a session that starts
                        // inline here (a ring coroutine) would read from a channel not yet registered.
                        ch.eventLoop().execute(() -> onAccept.accept(c));
                    }
                });
        io.netty.channel.ChannelFuture bound = b.bind(address).await();
        if (!bound.isSuccess()) {
            String m = String.valueOf(bound.cause().getMessage());
            RingIoException e = new RingIoException("bind", address.toString(), m.contains("in use") ? 98 : 5);
            e.initCause(bound.cause());
            throw e;
        }
        self[0] = new RingServer(bound.channel());
        return self[0];
    }

    /** The bound address (with the real port when bound to port 0). */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Connections accepted and still open. */
    public int connections() {
        return connections.size();
    }

    /** Stops accepting and closes every accepted connection; waits at most 10 s. */
    @Override
    public void close() {
        serverChannel.close().awaitUninterruptibly(10_000);
        for (RingConnection c : Set.copyOf(connections)) {
            c.submitClose();
        }
    }

    @Override
    public String toString() {
        return "RingServer[" + serverChannel.localAddress() + ", " + connections.size() + " connections]";
    }

    static EventLoop loopOf(Channel ch) {
        return ch.eventLoop();
    }
}
