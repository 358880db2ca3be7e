package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;

/**
 * The demo keeps its per-request state out of the exchange's attributes where it can: they are a
 * {@code ConcurrentHashMap} of 16 slots that grows (a new table, every entry moved) when it reaches
 * 12 entries. An annotated handler's request holds 11 at its peak without the demo (Spring's own,
 * one of them only while the handler is matched, the observation context and the starter's
 * coroutine context), so one attribute more made the map grow on every ping; the hop trace lives in
 * the request's observation context instead. Counted when the exchange ends, after the transient
 * one is gone.
 */
@Import(ExchangeAttributesTest.CountAttributes.class)
class ExchangeAttributesTest extends LiveServiceTestBase {

    /** What the exchange of each path held when it ended. */
    static final Map<String, List<String>> HELD = new ConcurrentHashMap<>();
    static final CountDownLatch ENDED = new CountDownLatch(3);

    @TestConfiguration
    static class CountAttributes {
        @Bean
        WebFilter countAttributes() {
            return (exchange, chain) -> chain.filter(exchange).doFinally(signal -> {
                HELD.put(exchange.getRequest().getPath().value(), List.copyOf(exchange.getAttributes().keySet()));
                ENDED.countDown();
            }).then(Mono.empty());
        }
    }

    @Test
    void aPingLeavesRoomBelowTheMapsGrowthAndTheHandlersStillFindTheTrace() throws Exception {
        RawHttp.Response ping = exchange(request("GET", "/api/ping", List.of(), null));
        assertThat(ping.status()).isEqualTo(200);
        assertThat(ping.header(HopTraces.HEADER)).startsWith("http@").endsWith(":request");

        String board = ok(json("POST", "/api/boards", "{\"name\":\"attributes\"}"), 201).get("id").asString();
        RawHttp.Response snapshot = exchange(request("GET", "/api/boards/" + board, List.of(), null));
        assertThat(snapshot.status()).isEqualTo(200);
        // The handler found the filter's trace and recorded its hops in it.
        assertThat(snapshot.header(HopTraces.HEADER)).startsWith("http@").contains(":request > ").contains("pump");

        assertThat(ENDED.await(10, TimeUnit.SECONDS)).isTrue();
        List<String> held = HELD.get("/api/ping");
        assertThat(held).as("the ping exchange's attributes at its end").doesNotContain(HopTraces.ATTRIBUTE);
        // 10 at the end + Spring's transient one while matching = 11 at the peak, below the growth at 12.
        assertThat(held.size()).as("attributes of a ping when it ends: %s", held).isLessThanOrEqualTo(10);
    }
}
