package dev.corobridge.demo.web.transport;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DuplexChannel;

/**
 * Ends a connection after a last answer without losing that answer. Closing a socket with unread
 * request bytes in its buffer (the rest of an overlong line, a body still trickling in) sends a
 * reset, which can destroy the answer in the client's buffer before it is read. So the output is
 * shut down first (the client reads the answer, then the end of the stream), and the connection
 * closes when the client closes it or after {@link #LINGER} at the latest (the {@link ExchangeHandler}
 * closes it at the client's end of stream). The caller drops whatever arrives meanwhile. A client
 * that has already shut its output down sends nothing that could cause a reset: the connection
 * closes at once.
 *
 * <p>Thread-safety: call on the connection's event loop, once the answer is written.
 */
final class LingeringClose {

    /** Longest wait for the client to close after the answer. */
    static final Duration LINGER = Duration.ofSeconds(2);

    private LingeringClose() {
    }

    /** Shuts the output of {@code ctx}'s connection down and closes it after {@link #LINGER} at the latest. */
    static void of(ChannelHandlerContext ctx) {
        if (ctx.channel() instanceof DuplexChannel duplex && duplex.isActive() && !duplex.isInputShutdown()) {
            duplex.shutdownOutput();
            ctx.executor().schedule(() -> {
                ctx.close();
            }, LINGER.toMillis(), TimeUnit.MILLISECONDS);
        } else {
            ctx.close();
        }
    }
}
