package dev.corobridge.demo.web.transport;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;

import io.netty.channel.Channel;
import io.netty.channel.ChannelException;
import io.netty.channel.unix.Buffer;
import io.netty.channel.unix.RawUnixChannelOption;
import io.netty.channel.unix.UnixChannel;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.http.server.HttpServer;

/**
 * The web server's listening socket, and a way to stop it accepting connections before it closes.
 *
 * <p><b>Why.</b> Closing a listening socket resets every connection the kernel has accepted for it
 * that the server has not taken yet (its accept queue), and every handshake under way: their clients
 * saw the connection established and may have sent a request, so they cannot tell whether it was
 * applied. While clients keep connecting, some are always in that state. Nothing in the socket API
 * stops a listening socket from completing handshakes short of closing it.
 *
 * <p><b>How.</b> {@link #stopAccepting()} attaches a classic BPF socket filter
 * ({@code SO_ATTACH_FILTER}) to the listening socket that drops every TCP segment with SYN set and
 * ACK clear: the first segment of a new connection, and nothing else. A client that connects from
 * then on gets no answer to its SYN and sends it again (after a second, then two more, ...); by then
 * the socket is closed and the kernel refuses the connection outright: the client knows nothing was
 * sent. Handshakes already under way complete (their final ACK passes), and the server keeps taking
 * and answering the connections in its queue, so once that has happened the queue is empty when the
 * socket closes. Connections inherit a listening socket's filter, which never drops anything of
 * theirs.
 *
 * <p>Linux with Netty's native transport (io_uring or epoll) only: with NIO, or on another system,
 * {@link #stopAccepting()} does nothing and says so.
 *
 * <p>Thread-safety: the socket is set once, when the server is bound, and read through a volatile
 * field; {@link #stopAccepting()} may be called from any thread (it is one {@code setsockopt}).
 */
public final class ListeningSocket implements NettyServerCustomizer {

    private static final Log LOG = LogFactory.getLog(ListeningSocket.class);
    /** {@code SOL_SOCKET} and {@code SO_ATTACH_FILTER} on Linux (asm-generic, as on x86_64 and aarch64). */
    private static final int SOL_SOCKET = 1;
    private static final int SO_ATTACH_FILTER = 26;
    /**
     * {@code struct sock_filter} instructions {code, jt, jf, k}. A TCP socket's filter sees the
     * segment from its TCP header on; byte 13 holds the flags.
     */
    private static final int[][] DROP_SYN = {
        {0x30, 0, 0, 13},           // ldb [13]           the flags
        {0x54, 0, 0, 0x12},         // and #0x12          SYN | ACK
        {0x15, 0, 1, 0x02},         // jeq #0x02, 0, 1    SYN without ACK?
        {0x06, 0, 0, 0},            // ret #0             drop it
        {0x06, 0, 0, 0xFFFFFFFF},   // ret #-1            keep anything else whole
    };

    private volatile Channel channel;

    @Override
    public HttpServer apply(HttpServer server) {
        return server.doOnBound(bound -> channel = bound.channel());
    }

    /**
     * Stops the listening socket from accepting new connections, as described above; the socket stays
     * open, and the server goes on taking the connections already accepted.
     *
     * @return whether it did: false when the server is not bound, is closed, or runs on a transport
     *         without socket filters
     */
    public boolean stopAccepting() {
        Channel ch = channel;
        if (!(ch instanceof UnixChannel) || !ch.isOpen()) {
            return false;
        }
        // The native transport's library is loaded (the channel is one of its): Buffer can be used.
        ByteBuffer instructions = Buffer.allocateDirectWithNativeOrder(DROP_SYN.length * 8);
        for (int[] i : DROP_SYN) {
            instructions.putShort((short) i[0]).put((byte) i[1]).put((byte) i[2]).putInt(i[3]);
        }
        // struct sock_fprog: the number of instructions (a short), then a pointer to them.
        int pointer = Buffer.addressSize();
        ByteBuffer program = Buffer.allocateDirectWithNativeOrder(2 * pointer);
        program.putShort(0, (short) DROP_SYN.length);
        if (pointer == 8) {
            program.putLong(pointer, Buffer.memoryAddress(instructions));
        } else {
            program.putInt(pointer, (int) Buffer.memoryAddress(instructions));
        }
        try {
            // The kernel copies the instructions.
            return ch.config().setOption(new RawUnixChannelOption("SO_ATTACH_FILTER", SOL_SOCKET, SO_ATTACH_FILTER,
                    program.capacity()), program);
        } catch (ChannelException e) {
            LOG.warn("Could not stop the listening socket from accepting connections: " + e.getMessage());
            return false;
        } finally {
            Reference.reachabilityFence(instructions);
        }
    }

    @Override
    public String toString() {
        return "ListeningSocket[" + channel + "]";
    }
}
