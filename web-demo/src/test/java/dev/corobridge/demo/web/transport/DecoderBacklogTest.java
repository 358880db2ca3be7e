package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

/**
 * The decoder of Netty's HTTP/1.1 codec can be asked for the bytes it holds: a Netty upgrade that
 * hides them fails here, not silently in the header deadline.
 */
class DecoderBacklogTest {

    @Test
    void theBytesAfterARequestAreCountedWhenItsEndIsHandedOn() {
        HttpServerCodec codec = new HttpServerCodec();
        DecoderBacklog backlog = DecoderBacklog.of(codec);
        assertThat(backlog).isNotSameAs(DecoderBacklog.UNKNOWN);
        int[] atEnd = {Integer.MIN_VALUE};
        EmbeddedChannel ch = new EmbeddedChannel(codec, new io.netty.channel.ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(io.netty.channel.ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof LastHttpContent) {
                    atEnd[0] = backlog.bytes();
                }
                ReferenceCountUtil.release(msg);
            }
        });
        ch.writeInbound(Unpooled.copiedBuffer("GET / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHo", StandardCharsets.US_ASCII));
        assertThat(atEnd[0]).isEqualTo("GET / HTTP/1.1\r\nHo".length());
        ch.writeInbound(Unpooled.copiedBuffer("st: x\r\n\r\n", StandardCharsets.US_ASCII));
        assertThat(atEnd[0]).isZero();
        assertThat(backlog.bytes()).isZero();
        ch.finishAndReleaseAll();
    }

    @Test
    void aHandlerThatIsNotACodecHasNoBacklogToAskFor() {
        assertThat(DecoderBacklog.of(new ChannelDuplexHandler())).isSameAs(DecoderBacklog.UNKNOWN);
        assertThat(DecoderBacklog.UNKNOWN.bytes()).isEqualTo(-1);
    }
}
