package dev.corobridge.demo.web.transport;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

import io.netty.channel.ChannelHandler;
import io.netty.channel.CombinedChannelDuplexHandler;
import io.netty.handler.codec.ByteToMessageDecoder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The bytes an HTTP codec's decoder has read but not decoded yet. Asked right when the decoder hands
 * on the end of a request, they are the beginning of the next request, read together with it: a
 * pipelining client, or one that stops in the middle of its next head, which must then be timed
 * although no byte of it may ever arrive again.
 *
 * <p>Netty offers no public way to ask: a codec's decoder ({@link CombinedChannelDuplexHandler}'s
 * {@code inboundHandler()}) and its unread bytes ({@link ByteToMessageDecoder}'s
 * {@code actualReadableBytes()}) are protected. Both are reached once, by reflection when this class
 * loads, and called through method handles. If they cannot be reached (another Netty), a warning
 * says so once and every instance answers {@code -1}, unknown.
 *
 * <p>Thread-safety: as the decoder's: ask on the connection's event loop.
 */
final class DecoderBacklog {

    private static final Log LOG = LogFactory.getLog(DecoderBacklog.class);
    private static final MethodHandle DECODER_OF_CODEC;
    private static final MethodHandle UNREAD_BYTES;
    /** The answer for a connection whose decoder cannot be asked. */
    static final DecoderBacklog UNKNOWN = new DecoderBacklog(null);

    static {
        MethodHandle decoderOf = null;
        MethodHandle unread = null;
        try {
            MethodHandles.Lookup codecs = MethodHandles.privateLookupIn(CombinedChannelDuplexHandler.class, MethodHandles.lookup());
            decoderOf = codecs.findVirtual(CombinedChannelDuplexHandler.class, "inboundHandler",
                    MethodType.methodType(io.netty.channel.ChannelInboundHandler.class));
            MethodHandles.Lookup decoders = MethodHandles.privateLookupIn(ByteToMessageDecoder.class, MethodHandles.lookup());
            unread = decoders.findVirtual(ByteToMessageDecoder.class, "actualReadableBytes", MethodType.methodType(int.class))
                    .asType(MethodType.methodType(int.class, ByteToMessageDecoder.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            LOG.warn("Cannot ask Netty's HTTP decoder for the bytes it holds (" + e + "): the beginning of a request read "
                    + "together with the previous request is not timed by demo.http.header-timeout, only by the idle timeout");
            decoderOf = null;
            unread = null;
        }
        DECODER_OF_CODEC = decoderOf;
        UNREAD_BYTES = unread;
    }

    private final ByteToMessageDecoder decoder;

    private DecoderBacklog(ByteToMessageDecoder decoder) {
        this.decoder = decoder;
    }

    /** The backlog of {@code codec}'s decoder; {@link #UNKNOWN} if it is not a codec whose decoder can be asked. */
    static DecoderBacklog of(ChannelHandler codec) {
        if (DECODER_OF_CODEC == null || !(codec instanceof CombinedChannelDuplexHandler<?, ?>)) {
            return UNKNOWN;
        }
        try {
            return DECODER_OF_CODEC.invoke((CombinedChannelDuplexHandler<?, ?>) codec) instanceof ByteToMessageDecoder decoder
                    ? new DecoderBacklog(decoder) : UNKNOWN;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot reach the decoder of " + codec, e);
        }
    }

    /** How many bytes the decoder holds undecoded, or {@code -1}: unknown. */
    int bytes() {
        if (decoder == null) {
            return -1;
        }
        try {
            return (int) UNREAD_BYTES.invokeExact(decoder);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot ask " + decoder + " for its unread bytes", e);
        }
    }
}
