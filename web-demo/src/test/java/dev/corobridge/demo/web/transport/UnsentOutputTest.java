package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The unsent-output budget counts the output of clients that stopped taking it, not of a client
 * that is taking a large answer: a client that reads a large answer at its pace must not be closed
 * because it holds more than one that never reads (it was, when the check ran while its answer was
 * still in the server's buffer), while a client that takes nothing for a second is closed.
 *
 * <p>Real TCP connections to a Netty server whose send buffers are small; the checks are called
 * directly (the scheduled one runs once a day here) on a clock the test moves, so what each sees
 * is set by the test.
 */
class UnsentOutputTest {

    private static final int BUDGET = 1024 * 1024;
    private static final int LARGE = 8 * 1024 * 1024;
    private static final int SMALLER = 4 * 1024 * 1024;

    private EventLoopGroup loops;
    private Channel server;
    private final BlockingQueue<Channel> accepted = new LinkedBlockingQueue<>();
    private final List<Socket> clients = new ArrayList<>();
    private final AtomicLong clock = new AtomicLong();
    private UnsentOutput unsent;

    @BeforeEach
    void startServer() throws Exception {
        unsent = new UnsentOutput(BUDGET, Duration.ofDays(1), new ClientFaultSummary(), clock::get);
        loops = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        server = new ServerBootstrap().group(loops).channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.SO_SNDBUF, 64 * 1024)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                            @Override
                            public void channelActive(ChannelHandlerContext ctx) {
                                unsent.add(ctx.channel());
                                accepted.add(ctx.channel());
                                ctx.fireChannelActive();
                            }
                        });
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
    }

    @AfterEach
    void stopServer() throws Exception {
        for (Socket s : clients) {
            s.close();
        }
        unsent.close();
        server.close().sync();
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }

    @Test
    void aClientTakingALargeAnswerIsNotClosedWhileOneThatTakesNothingIs() throws Exception {
        Connection stalled = connectAndAnswer(SMALLER);
        Connection reader = connectAndAnswer(LARGE);
        assertThat(pending(reader)).as("the reader holds more than the stalled client").isGreaterThan(pending(stalled));

        assertThat(unsent.check()).as("closed at a connection's first check").isZero();
        assertThat(reader.server.isOpen()).isTrue();

        long before = pending(reader);
        read(reader, 1024 * 1024);
        awaitPendingAtMost(reader, before - 512 * 1024);
        clock.addAndGet(1_100_000_000L);

        assertThat(unsent.check()).as("closed once the stalled client took nothing for a second").isEqualTo(1);
        assertThat(stalled.server.closeFuture().await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(reader.server.isOpen()).as("the reader, which took its answer meanwhile, stays open").isTrue();

        assertThat(1024 * 1024 + readToTheEndOfTheAnswer(reader, LARGE - 1024 * 1024)).isEqualTo(LARGE);
    }

    @Test
    void aClientThatStopsReadingIsClosedASecondAfterItTookItsLast() throws Exception {
        Connection reader = connectAndAnswer(LARGE);
        assertThat(unsent.check()).isZero();

        long before = pending(reader);
        read(reader, 1024 * 1024);
        awaitPendingAtMost(reader, before - 512 * 1024);
        assertThat(unsent.check()).as("it took some since the last check").isZero();

        clock.addAndGet(500_000_000L);
        assertThat(unsent.check()).as("half a second without taking anything").isZero();
        clock.addAndGet(500_000_000L);
        assertThat(unsent.check()).as("a second without taking anything").isEqualTo(1);
        assertThat(reader.server.closeFuture().await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void connectionsWithinTheBudgetAreNotClosedHoweverLongTheyWait() throws Exception {
        Connection small = connectAndAnswer(BUDGET / 2);
        assertThat(unsent.check()).isZero();
        clock.addAndGet(1_100_000_000L);
        assertThat(unsent.check()).isZero();
        assertThat(small.server.isOpen()).isTrue();
    }

    private record Connection(Socket client, Channel server) {
    }

    /** A client with a small receive buffer that does not read; the server writes it {@code bytes} at once. */
    private Connection connectAndAnswer(int bytes) throws Exception {
        Socket s = new Socket();
        clients.add(s);
        s.setReceiveBufferSize(4096);
        s.connect(server.localAddress());
        Channel c = accepted.poll(10, TimeUnit.SECONDS);
        assertThat(c).isNotNull();
        c.writeAndFlush(Unpooled.wrappedBuffer(new byte[bytes])).addListener(f -> {
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.isWritable() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(c.isWritable()).as("the answer waits in the server's buffer").isFalse();
        return new Connection(s, c);
    }

    /** The bytes waiting in the server's buffer (of a message partly written, what is left), read on its loop. */
    private static long pending(Connection c) throws Exception {
        return c.server.eventLoop().submit(() -> {
            ChannelOutboundBuffer out = c.server.unsafe().outboundBuffer();
            return out == null ? 0 : out.totalPendingWriteBytes() - out.currentProgress();
        }).get();
    }

    private static void awaitPendingAtMost(Connection c, long bytes) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pending(c) > bytes && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(pending(c)).as("the server's buffer drained as the client read").isLessThanOrEqualTo(bytes);
    }

    private static void read(Connection c, int bytes) throws IOException {
        InputStream in = c.client.getInputStream();
        byte[] buf = new byte[64 * 1024];
        int left = bytes;
        while (left > 0) {
            int n = in.read(buf, 0, Math.min(buf.length, left));
            assertThat(n).as("the answer ended early").isPositive();
            left -= n;
        }
    }

    private static int readToTheEndOfTheAnswer(Connection c, int bytes) throws IOException {
        c.client.setSoTimeout(10_000);
        read(c, bytes);
        return bytes;
    }
}
