package dev.corobridge.ring;

import dev.corobridge.bridge.internal.BlockingGuard;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
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
 * suspending session as a coroutine on the connection's ring. An {@code onAccept} that throws leaves
 * nobody owning its connection: the connection is closed and the failure goes to
 * {@code Tasks.uncaughtFailureHandler()}.
 *
 * <p><b>Binding departs at call time and never blocks:</b> {@link RingPool#bindAsync} returns a
 * {@link RingOp} of the server, like every ring operation, so it may be called on the pump or on a
 * ring thread; wait for it where waiting is allowed ({@code pool.bindAsync(address, onAccept)} on a
 * virtual thread, {@code pool.bind(...)} / {@code pool.serve(...)} from Kotlin). Cancelling it
 * withdraws it at once: a server bound anyway is closed, and nothing it accepted is handed out; a
 * bind failure or the pool's shutdown reported after the withdrawal does not change its outcome.
 *
 * <p><b>Closing.</b> {@link #close()} stops accepting and closes every connection it accepted: their
 * waiting reads and writes fail with {@code EBADF} (see {@link RingConnection}). A connection the
 * kernel accepted while the server was closing is closed without reaching {@code onAccept}, so none
 * outlives the server. The pool's shutdown closes its servers too (an adopted group's loops keep
 * running, and would otherwise keep accepting). One end is TCP's, not ours: a client whose handshake
 * completes just as the listening socket closes can be left half-open by the kernel (its connect
 * succeeded, the server's kernel kept nothing and sent neither FIN nor reset); it learns so when it
 * sends (the reply is a reset) or from a read timeout or keep-alive, never from a read alone.
 *
 * <p><b>Thread-safety.</b> Safe from any thread. {@link #close()} waits for the listening socket
 * only where blocking is allowed; on the pump or a ring thread it starts the close and returns.
 */
public final class RingServer implements AutoCloseable {

    private final RingPool pool;
    private final Set<RingConnection> connections = ConcurrentHashMap.newKeySet();
    private volatile Channel serverChannel;
    private volatile boolean closed;

    private RingServer(RingPool pool) {
        this.pool = pool;
    }

    static RingOp<RingServer> bind(RingPool pool, InetSocketAddress address, Consumer<RingConnection> onAccept) {
        Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(onAccept, "onAccept");
        RingOp<RingServer> op = new RingOp<RingServer>("bind", address.toString()).releasingWith(RingServer::closeNow);
        if (pool.isShutdown()) {
            op.shutDown(pool.shutDownReason());
            return op;
        }
        RingServer server = new RingServer(pool); // before bind: a connection may be accepted at once
        ServerBootstrap b = pool.connector().serverBootstrap(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                server.accepted(ch, onAccept);
            }
        });
        op.startWithdrawable(); // a server bound after cancel() is closed, never handed out
        ChannelFuture bound = b.bind(address);
        server.serverChannel = bound.channel();
        op.armCancel(() -> {
            server.closeNow(); // stops the bind, or closes the listening socket if it is bound already
            return false;
        });
        bound.addListener((ChannelFuture f) -> {
            // On the server channel's loop, before it accepts anything: nothing is handed out
            // before this decides.
            if (pool.isShutdown()) {
                server.closeNow();
                op.shutDown(pool.shutDownReason());
            } else if (!f.isSuccess()) {
                op.fail(RingConnector.socketFailure("bind", address,
                        NativeErrors.bindErrnoOf(f.cause(), address.getAddress()), f.cause()));
            } else if (!op.commit()) {
                server.closeNow(); // withdrawn by cancel(): its awaiter has left
            } else {
                pool.remember(server);
                op.succeed(server);
            }
        });
        return op;
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
            c.closeAsync();
            return;
        }
        // After registration completes, not inside initChannel: a session that starts inline here
        // (a ring coroutine) would read from a channel not yet registered.
        ch.eventLoop().execute(() -> {
            if (c.isOpen()) {
                try {
                    onAccept.accept(c);
                } catch (Throwable e) {
                    // Nobody owns the connection now: close it (the peer sees the end) rather than
                    // leave it open until the server closes, and report the failure.
                    c.closeAsync();
                    dev.corobridge.bridge.internal.UncaughtFailures.report(null, e);
                }
            }
        });
    }

    /** The bound address (with the real port when bound to port 0). */
    public InetSocketAddress getLocalAddress() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** The loop of the listening channel (for tests). */
    io.netty.channel.EventLoop channelEventLoop() {
        return serverChannel.eventLoop();
    }

    /** Connections accepted and still open. */
    public int getConnections() {
        return connections.size();
    }

    /** Whether {@link #close()} was called (or the pool shut down). */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops accepting and closes every accepted connection. Waits at most 10 s for the listening
     * socket to close — except on a thread that must not block (the pump, a ring thread), where it
     * only starts the close: waiting there would freeze that thread, or wait for itself.
     */
    @Override
    public void close() {
        ChannelFuture f = closeNow();
        if (BlockingGuard.forbiddenContext() == null && !f.channel().eventLoop().inEventLoop() && !onRingThread()) {
            f.awaitUninterruptibly(10_000);
        }
    }

    private boolean onRingThread() {
        for (Ring r : pool.getRings()) {
            if (r.isCurrentThread()) {
                return true;
            }
        }
        return false;
    }

    /** Stops accepting and closes every connection, without waiting (the pool's shutdown). */
    ChannelFuture closeNow() {
        closed = true; // before the snapshot below: a connection accepted from now on closes itself
        ChannelFuture f = serverChannel.close();
        for (RingConnection c : Set.copyOf(connections)) {
            c.closeAsync();
        }
        pool.forget(this);
        return f;
    }

    @Override
    public String toString() {
        return "RingServer[" + serverChannel.localAddress() + ", " + connections.size() + " connections]";
    }
}
