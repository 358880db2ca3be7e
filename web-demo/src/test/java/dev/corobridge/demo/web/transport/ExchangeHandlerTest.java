package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import org.junit.jupiter.api.Test;
import reactor.netty.NettyPipeline;

/**
 * What the {@link ExchangeHandler} of a connection reports to the tracker and writes, event by
 * event, on a connection whose HTTP codec is a stand-in that passes messages through (requests and
 * responses are written as objects) and whose clock is virtual: the deadlines pass when the test
 * advances it. What depends on where a request ends in the bytes read (a request and the beginning
 * of the next in one read) is tested with Netty's own codec.
 */
class ExchangeHandlerTest {

    private static final Duration HEADER_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration BODY_TIMEOUT = Duration.ofSeconds(20);

    private final ConnectionTracker tracker = new ConnectionTracker();
    private final ServiceState state = new ServiceState();
    private final List<String> warnings = new ArrayList<>();
    private final ClientFaultSummary faults = new ClientFaultSummary(Duration.ofMinutes(1), System::nanoTime, warnings::add);
    private final HttpTransport transport = new HttpTransport(tracker, state, faults, HEADER_TIMEOUT, BODY_TIMEOUT);

    /** A connection whose codec is a stand-in that passes messages: objects in, objects out. */
    private EmbeddedChannel connection() {
        return connection(new ChannelDuplexHandler());
    }

    /** A connection with Netty's HTTP/1.1 codec: bytes in, bytes out. */
    private EmbeddedChannel connectionWithCodec() {
        return connection(new HttpServerCodec());
    }

    private EmbeddedChannel connection(io.netty.channel.ChannelHandler codec) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        ch.pipeline().addLast(NettyPipeline.HttpCodec, codec);
        ExchangeHandler.install(ch.pipeline(), transport);
        return ch;
    }

    private static ByteBuf ascii(String text) {
        return Unpooled.copiedBuffer(text, StandardCharsets.US_ASCII);
    }

    /** Releases the requests the codec decoded so far; returns how many there were. */
    private static int requestsRead(EmbeddedChannel ch) {
        int heads = 0;
        for (Object m; (m = ch.readInbound()) != null; ) {
            heads += m instanceof HttpRequest ? 1 : 0;
            ReferenceCountUtil.release(m);
        }
        return heads;
    }

    /** What the codec wrote since the last call, as text. */
    private static String written(EmbeddedChannel ch) {
        StringBuilder out = new StringBuilder();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            out.append(b.toString(StandardCharsets.US_ASCII));
            b.release();
        }
        return out.toString();
    }

    private static void answerOk(EmbeddedChannel ch) {
        FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
        ok.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        ch.writeOutbound(ok);
        assertThat(written(ch)).startsWith("HTTP/1.1 200 OK");
    }

    private static DefaultHttpRequest requestHead() {
        DefaultHttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/api/boards");
        head.headers().set(io.netty.handler.codec.http.HttpHeaderNames.HOST, "localhost");
        return head;
    }

    private static DefaultFullHttpRequest request() {
        DefaultFullHttpRequest request = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/api/boards");
        request.headers().set(io.netty.handler.codec.http.HttpHeaderNames.HOST, "localhost");
        return request;
    }

    private static void respond(EmbeddedChannel ch, HttpResponseStatus status) {
        ch.writeOutbound(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status));
    }

    private static void pass(EmbeddedChannel ch, Duration time) {
        ch.advanceTimeBy(time.toNanos(), TimeUnit.NANOSECONDS);
        ch.runScheduledPendingTasks();
    }

    private static FullHttpResponse problem(EmbeddedChannel ch, HttpResponseStatus status) {
        FullHttpResponse r = ch.readOutbound();
        assertThat(r.status()).isEqualTo(status);
        assertThat(r.headers().get(HttpHeaderNames.CONTENT_TYPE)).isEqualTo(ProblemJson.MEDIA_TYPE);
        assertThat(r.content().toString(StandardCharsets.UTF_8)).contains("\"status\":" + status.code());
        return r;
    }

    @Test
    void anAcceptedConnectionIsBusyUntilItsFirstResponseIsWritten() {
        EmbeddedChannel ch = connection();
        assertThat(tracker.open()).isEqualTo(1);
        assertThat(tracker.busy()).isEqualTo(1);
        ch.writeInbound(requestHead());
        assertThat(tracker.busy()).isEqualTo(1);
        respond(ch, HttpResponseStatus.CREATED);
        assertThat(tracker.busy()).isZero();
        assertThat(tracker.open()).isEqualTo(1);
    }

    @Test
    void aKeepAliveConnectionIsBusyAgainWithItsNextRequestAndIdleAfterItsLastContent() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(request());
        respond(ch, HttpResponseStatus.OK);
        ch.writeInbound(request());
        assertThat(tracker.busy()).isEqualTo(1);
        ch.writeOutbound(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        assertThat(tracker.busy()).as("headers written, body not yet").isEqualTo(1);
        ch.writeOutbound(LastHttpContent.EMPTY_LAST_CONTENT);
        assertThat(tracker.busy()).isZero();
    }

    @Test
    void pipelinedRequestsKeepTheConnectionBusyUntilTheLastIsAnswered() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(request(), request(), request());
        for (int left = 2; left >= 0; left--) {
            respond(ch, HttpResponseStatus.OK);
            assertThat(tracker.busy()).as("%d answers to go", left).isEqualTo(left > 0 ? 1 : 0);
        }
    }

    @Test
    void anInterimResponseDoesNotAnswerTheRequest() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(request());
        respond(ch, HttpResponseStatus.CONTINUE);
        assertThat(tracker.busy()).isEqualTo(1);
        respond(ch, HttpResponseStatus.OK);
        assertThat(tracker.busy()).isZero();
    }

    @Test
    void duringShutdownEveryAnswerSaysConnectionCloseAndTheConnectionClosesOnceItIsWritten() {
        EmbeddedChannel before = connection();
        before.writeInbound(request());
        respond(before, HttpResponseStatus.OK);
        HttpResponse keptAlive = before.readOutbound();
        assertThat(keptAlive.headers().contains(HttpHeaderNames.CONNECTION)).isFalse();
        assertThat(before.isOpen()).isTrue();

        state.shutDown();
        before.writeInbound(request());
        respond(before, HttpResponseStatus.SERVICE_UNAVAILABLE);
        HttpResponse refused = before.readOutbound();
        assertThat(refused.headers().get(HttpHeaderNames.CONNECTION)).isEqualToIgnoringCase("close");
        assertThat(before.isOpen()).as("closed once the refusal is written").isFalse();
        assertThat(tracker.refusedCount()).isEqualTo(1);

        EmbeddedChannel after = connection();
        after.writeInbound(request());
        respond(after, HttpResponseStatus.OK);
        HttpResponse completed = after.readOutbound();
        assertThat(completed.headers().get(HttpHeaderNames.CONNECTION)).as("a 2xx during shutdown too")
                .isEqualToIgnoringCase("close");
        assertThat(after.isOpen()).isFalse();
        assertThat(tracker.refusedCount()).isEqualTo(1);
        assertThat(tracker.open()).isZero();
        assertThat(tracker.busy()).isZero();
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
        respond(idle, HttpResponseStatus.OK);
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

    @Test
    void headersThatDoNotCompleteInTimeGet408AndTheConnectionCloses() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(Unpooled.copiedBuffer("GET /api/ping HTTP/1.1\r\nHost: x", StandardCharsets.US_ASCII));
        ReferenceCountUtil.release(ch.readInbound());
        pass(ch, HEADER_TIMEOUT.minusMillis(1));
        assertThat((Object) ch.readOutbound()).as("not yet").isNull();
        pass(ch, Duration.ofMillis(1));
        problem(ch, HttpResponseStatus.REQUEST_TIMEOUT).release();
        assertThat(ch.isOpen()).isFalse();
        assertThat(ClientFaultSummary.isCounted(ch)).isTrue();
        assertThat(tracker.open()).isZero();
    }

    @Test
    void theHeaderDeadlineEndsWithTheHeadAndStartsAgainWithTheNextRequest() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(Unpooled.copiedBuffer("GET /api/ping HTTP/1.1\r\n", StandardCharsets.US_ASCII));
        ReferenceCountUtil.release(ch.readInbound());
        ch.writeInbound(request());
        pass(ch, HEADER_TIMEOUT.multipliedBy(2));
        assertThat((Object) ch.readOutbound()).as("no 408 for a request under way").isNull();
        respond(ch, HttpResponseStatus.OK);
        ReferenceCountUtil.release(ch.readOutbound());
        ch.writeInbound(Unpooled.copiedBuffer("GET /api/ping HTTP/1.1\r\nHo", StandardCharsets.US_ASCII));
        pass(ch, HEADER_TIMEOUT);
        problem(ch, HttpResponseStatus.REQUEST_TIMEOUT).release();
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void aHeadThatBeginsWhileTheCheckOfAnEarlierOneIsArmedGetsItsWholeDeadline() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(Unpooled.copiedBuffer("GET /api/ping HTTP/1.1\r\n", StandardCharsets.US_ASCII));
        ReferenceCountUtil.release(ch.readInbound());
        ch.writeInbound(request());
        respond(ch, HttpResponseStatus.OK);
        ReferenceCountUtil.release(ch.readOutbound());
        pass(ch, HEADER_TIMEOUT.dividedBy(2));
        ch.writeInbound(Unpooled.copiedBuffer("GET /api/ping HTTP/1.1\r\nHo", StandardCharsets.US_ASCII));
        pass(ch, HEADER_TIMEOUT.minusMillis(1));
        assertThat((Object) ch.readOutbound()).as("the first head's check fired meanwhile; this head has 1 ms left").isNull();
        assertThat(ch.isOpen()).isTrue();
        pass(ch, Duration.ofMillis(1));
        problem(ch, HttpResponseStatus.REQUEST_TIMEOUT).release();
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void aConnectionIdleAfterManyRequestsHasNoTimerLeft() {
        EmbeddedChannel ch = connection();
        for (int i = 0; i < 50; i++) {
            ch.writeInbound(Unpooled.copiedBuffer("GET /api/ping HTTP/1.1\r\n", StandardCharsets.US_ASCII));
            ReferenceCountUtil.release(ch.readInbound());
            ch.writeInbound(request());
            respond(ch, HttpResponseStatus.OK);
            ReferenceCountUtil.release(ch.readOutbound());
            pass(ch, Duration.ofMillis(1));
        }
        pass(ch, HEADER_TIMEOUT);
        assertThat((Object) ch.readOutbound()).as("no head under way when the check fires").isNull();
        assertThat(ch.isOpen()).isTrue();
        assertThat(ch.runScheduledPendingTasks()).as("nothing left scheduled").isEqualTo(-1);
    }

    @Test
    void theBeginningOfAHeadReadWithTheRequestBeforeItGetsTheHeaderDeadlineOnceThatOneIsAnswered() {
        EmbeddedChannel ch = connectionWithCodec();
        ch.writeInbound(ascii("GET /api/ping HTTP/1.1\r\nHost: x\r\n\r\nGET /api/ping HTTP/1.1\r\nHo"));
        assertThat(requestsRead(ch)).isEqualTo(1);
        pass(ch, HEADER_TIMEOUT.multipliedBy(2));
        assertThat(written(ch)).as("the service's time to answer does not count against the next head").isEmpty();
        answerOk(ch);
        pass(ch, HEADER_TIMEOUT.minusMillis(1));
        assertThat(written(ch)).as("not yet").isEmpty();
        pass(ch, Duration.ofMillis(1));
        assertThat(written(ch)).startsWith("HTTP/1.1 408").contains(ProblemJson.MEDIA_TYPE, "\"status\":408");
        assertThat(ch.isOpen()).isFalse();
        assertThat(ClientFaultSummary.isCounted(ch)).isTrue();
    }

    @Test
    void theBeginningOfAHeadAfterARequestThatCompletedInALaterReadGetsTheHeaderDeadline() {
        EmbeddedChannel ch = connectionWithCodec();
        ch.writeInbound(ascii("GET /api/ping HTTP/1.1\r\nHo")); // the codec keeps the unfinished line
        ch.writeInbound(ascii("st: x\r\n\r\nGET /api/ping HT"));
        assertThat(requestsRead(ch)).isEqualTo(1);
        answerOk(ch);
        pass(ch, HEADER_TIMEOUT);
        assertThat(written(ch)).startsWith("HTTP/1.1 408");
        assertThat(ch.isOpen()).isFalse();
    }

    /** Adds a handler that answers each request as soon as its head is read, before its body. */
    private static void answersAtTheHead(EmbeddedChannel ch) {
        ch.pipeline().addLast(new io.netty.channel.ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                if (msg instanceof HttpRequest) {
                    FullHttpResponse ok = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK);
                    ok.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
                    ctx.writeAndFlush(ok);
                }
                ReferenceCountUtil.release(msg);
            }
        });
    }

    @Test
    void theBeginningOfAHeadAfterTheBodyOfARequestAnsweredAtItsHeadGetsTheHeaderDeadline() {
        EmbeddedChannel ch = connectionWithCodec();
        answersAtTheHead(ch);
        ch.writeInbound(ascii("POST /api/boards HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}GET /api/ping HTTP/1.1\r\nHo"));
        assertThat(written(ch)).startsWith("HTTP/1.1 200 OK");
        pass(ch, HEADER_TIMEOUT);
        assertThat(written(ch)).startsWith("HTTP/1.1 408");
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void theBodyOfARequestAnsweredAtItsHeadHasTheBodyDeadlineNotTheHeaderDeadline() {
        EmbeddedChannel ch = connectionWithCodec();
        answersAtTheHead(ch);
        ch.writeInbound(ascii("POST /api/boards HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n"));
        assertThat(written(ch)).startsWith("HTTP/1.1 200 OK");
        ch.writeInbound(ascii("{"));
        pass(ch, HEADER_TIMEOUT.plusSeconds(5));
        assertThat(ch.isOpen()).as("the body is within its own deadline").isTrue();
        ch.writeInbound(ascii("\"\"}"));
        pass(ch, BODY_TIMEOUT.multipliedBy(2));
        assertThat(written(ch)).isEmpty();
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void requestsThatEndWhereTheBytesReadEndLeaveNoHeaderDeadlineBehind() {
        EmbeddedChannel ch = connectionWithCodec();
        ch.writeInbound(ascii("GET /api/ping HTTP/1.1\r\nHost: x\r\n\r\nGET /api/ping HTTP/1.1\r\nHost: x\r\n\r\n"));
        assertThat(requestsRead(ch)).isEqualTo(2);
        answerOk(ch);
        answerOk(ch);
        ch.writeInbound(ascii("GET /api/ping HTTP/1.1\r\nHo"));
        ch.writeInbound(ascii("st: x\r\n\r\n"));
        assertThat(requestsRead(ch)).isEqualTo(1);
        answerOk(ch);
        pass(ch, HEADER_TIMEOUT.multipliedBy(3));
        assertThat(written(ch)).as("an idle connection is left to the idle timeout").isEmpty();
        assertThat(ch.isOpen()).isTrue();
        assertThat(ch.runScheduledPendingTasks()).as("nothing left scheduled").isEqualTo(-1);
    }

    @Test
    void aBodyThatDoesNotCompleteInTimeGets408WhenNothingWasAnswered() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(requestHead());
        pass(ch, BODY_TIMEOUT);
        problem(ch, HttpResponseStatus.REQUEST_TIMEOUT).release();
        assertThat(ch.isOpen()).isFalse();
        assertThat(ClientFaultSummary.isCounted(ch)).isTrue();
    }

    @Test
    void aBodyThatDoesNotCompleteAfterItsAnswerBeganClosesTheConnectionWithoutA408() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(requestHead());
        ch.writeOutbound(new DefaultHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK));
        HttpResponse head = ch.readOutbound();
        assertThat(head.status()).isEqualTo(HttpResponseStatus.OK);
        pass(ch, BODY_TIMEOUT);
        assertThat((Object) ch.readOutbound()).as("no second status").isNull();
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void aBodyThatCompletesStopsItsDeadline() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(requestHead());
        ch.writeInbound(LastHttpContent.EMPTY_LAST_CONTENT);
        pass(ch, BODY_TIMEOUT.multipliedBy(2));
        assertThat((Object) ch.readOutbound()).isNull();
        assertThat(ch.isOpen()).isTrue();
    }

    @Test
    void aRequestTargetThatIsNotAUriIsRefusedWithProblemJsonAndNotPassedOn() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, "/api/boards/b1\u0000"));
        assertThat((Object) ch.readInbound()).isNull();
        FullHttpResponse r = problem(ch, HttpResponseStatus.BAD_REQUEST);
        assertThat(r.content().toString(StandardCharsets.UTF_8)).contains("not a URI").doesNotContain("\u0000");
        assertThat(r.headers().get(HttpHeaderNames.CONNECTION)).isEqualToIgnoringCase("close");
        r.release();
        assertThat(ch.isOpen()).isFalse();
    }

    @Test
    void anEmptyRefusalFromBelowSpringBecomesProblemJsonWithItsHeaders() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(new DefaultFullHttpRequest(HttpVersion.valueOf("HTTP/2.0"), HttpMethod.GET, "/api/ping"));
        ReferenceCountUtil.release(ch.readInbound());
        FullHttpResponse empty = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_REQUEST);
        empty.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0).set(HttpHeaderNames.CONNECTION, "close");
        ch.writeOutbound(empty);
        FullHttpResponse r = problem(ch, HttpResponseStatus.BAD_REQUEST);
        assertThat(r.content().toString(StandardCharsets.UTF_8)).contains("HTTP/2");
        assertThat(r.headers().get(HttpHeaderNames.CONNECTION)).isEqualTo("close");
        assertThat(r.headers().getInt(HttpHeaderNames.CONTENT_LENGTH)).isEqualTo(r.content().readableBytes());
        r.release();
        assertThat(empty.refCnt()).as("the empty answer is released").isZero();
    }

    @Test
    void anErrorWithABodyOrAContentTypeIsLeftAlone() {
        EmbeddedChannel ch = connection();
        ch.writeInbound(request());
        FullHttpResponse own = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.NOT_FOUND);
        own.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
        ch.writeOutbound(own);
        assertThat((Object) ch.readOutbound()).isSameAs(own);
        own.release();
    }
}
