package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;

/** What {@link ConnectionTrackingHandler} reports for each event of a connection, and what it changes. */
class ConnectionTrackingHandlerTest {

    private final ConnectionTracker tracker = new ConnectionTracker();
    private final ServiceState state = new ServiceState();

    private EmbeddedChannel connection() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ConnectionTrackingHandler.install(ch.pipeline(), tracker, state);
        return ch;
    }

    private static DefaultHttpRequest request() {
        return new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/api/boards");
    }

    @Test
    void anAcceptedConnectionIsBusyUntilItsFirstResponseIsWritten() {
        EmbeddedChannel ch = connection();
        assertThat(tracker.open()).isEqualTo(1);
        assertThat(tracker.busy()).isEqualTo(1);
        ch.writeInbound(request());
        assertThat(tracker.busy()).isEqualTo(1);
        ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CREATED));
        assertThat(tracker.busy()).isZero();
        assertThat(tracker.open()).isEqualTo(1);
    }

    @Test
    void aKeepAliveConnectionIsBusyAgainWithItsNextRequestAndIdleAfterItsLastContent() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(request());
        ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        ch.writeInbound(request());
        assertThat(tracker.busy()).isEqualTo(1);
        ch.writeOutbound(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        assertThat(tracker.busy()).as("headers written, body not yet").isEqualTo(1);
        ch.writeOutbound(LastHttpContent.EMPTY_LAST_CONTENT);
        assertThat(tracker.busy()).isZero();
    }

    @Test
    void anInterimResponseDoesNotAnswerTheRequest() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(request());
        ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.CONTINUE));
        assertThat(tracker.busy()).isEqualTo(1);
        ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        assertThat(tracker.busy()).isZero();
    }

    @Test
    void responsesKeepTheConnectionAliveUntilShutdownAndCloseItAfter() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(request());
        ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        HttpResponse before = ch.readOutbound();
        assertThat(before.headers().contains(HttpHeaderNames.CONNECTION)).isFalse();

        state.shutDown();
        ch.writeInbound(request());
        ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SERVICE_UNAVAILABLE));
        HttpResponse after = ch.readOutbound();
        assertThat(after.headers().get(HttpHeaderNames.CONNECTION)).isEqualToIgnoringCase("close");
        assertThat(tracker.refusedCount()).isEqualTo(1);

        ch.writeInbound(request());
        ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        HttpResponse completed = ch.readOutbound();
        assertThat(completed.headers().get(HttpHeaderNames.CONNECTION)).as("a 2xx during shutdown too").isEqualToIgnoringCase("close");
        assertThat(tracker.refusedCount()).isEqualTo(1);
    }

    @Test
    void closingABusyConnectionReleasesIt() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(request());
        ch.close();
        assertThat(tracker.open()).isZero();
        assertThat(tracker.busy()).isZero();
    }

    @Test
    void closingAnIdleConnectionLeavesNothingBusy() {
        EmbeddedChannel busyOne = connection();
        EmbeddedChannel idle = connection();
        idle.writeInbound(request());
        idle.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        idle.close();
        assertThat(tracker.open()).isEqualTo(1);
        assertThat(tracker.busy()).as("only the other one").isEqualTo(1);
        busyOne.close();
        assertThat(tracker.busy()).isZero();
    }

    @Test
    void aResponseWhoseWriteFailsStillEndsTheExchange() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(request());
        ch.pipeline().addFirst(new ChannelOutboundHandlerAdapter() {
            @Override
            public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(new IOException("peer gone"));
            }
        });
        ch.writeOneOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        ch.flushOutbound();
        assertThat(tracker.busy()).isZero();
        assertThat(tracker.open()).isEqualTo(1);
    }
}
