package dev.corobridge.demo.web;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * On both faces the pump step only computes the value: the answer (body encoding, the response's
 * commit, the hand-over of the write) never happens on the UI-affinity pump thread, for reads,
 * writes and refusals that come back from the pump; on the Java face it happens on the request's
 * HTTP event loop (the starter's {@code Task} adapter delivers there: a {@code Task} turned into a
 * {@code Mono} any other way would answer on the pump). A test-only filter writes the thread that
 * commits each response into a header.
 */
@Import(AnswerThreadTest.CommitThread.class)
class AnswerThreadTest extends LiveServiceTestBase {

    private static final String HEADER = "Commit-Thread";
    /** The pump thread's name (corobridge.pump.name in application.properties). */
    private static final String PUMP = "corobridge-pump";

    /** Names, in each response, the thread that commits it. */
    @TestConfiguration(proxyBeanMethods = false)
    static class CommitThread {
        @Bean
        WebFilter commitThread() {
            return new OrderedFilter();
        }
    }

    private static final class OrderedFilter implements WebFilter, Ordered {
        @Override
        public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
            exchange.getResponse().beforeCommit(() -> {
                exchange.getResponse().getHeaders().set(HEADER, Thread.currentThread().getName());
                return Mono.empty();
            });
            return chain.filter(exchange);
        }

        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE + 1;
        }
    }

    @Test
    void theAnswerIsMadeOnTheRequestsEventLoop() throws Exception {
        SoftAssertions soft = new SoftAssertions();
        for (String face : FACES) {
            String b = createBoard(face, "threads");
            String n = addNote(face, b, "a note");
            String bPath = face + "/boards/" + b;
            List<byte[]> requests = List.of(
                    request("GET", face + "/boards", List.of(), null),
                    request("GET", bPath, List.of(), null),
                    request("GET", face + "/boards/b999999", List.of(), null),
                    request("GET", bPath + "/notes/" + n, List.of(), null),
                    request("GET", bPath + "/stats", List.of(), null),
                    request("GET", bPath + "/changes?after=0", List.of(), null),
                    json("POST", face + "/boards", "{\"name\":\"more\"}"),
                    json("POST", bPath + "/notes", "{\"text\":\"more\"}"),
                    json("PUT", bPath + "/notes/" + n, "{\"text\":\"edited\",\"expectedVersion\":1}"),
                    request("DELETE", bPath + "/notes/" + n + "?expectedVersion=2", List.of(), null),
                    request("DELETE", bPath + "/notes/" + n, List.of(), null));
            for (byte[] r : requests) {
                RawHttp.Response answer = exchange(r);
                String line = new String(r, 0, Math.min(r.length, 60), StandardCharsets.ISO_8859_1)
                        .lines().findFirst().orElse("");
                soft.assertThat(answer.status()).as("status of %s", line).isBetween(200, 404);
                String thread = answer.header(HEADER);
                soft.assertThat(thread).as("thread that committed the answer to %s", line).isNotNull()
                        .doesNotStartWith(PUMP);
                if (face.equals("/api")) {
                    // Reactor Netty's loops: "webflux-http-io_uring-1" and the like. (The Kotlin face
                    // may also go on from the CPU dispatcher, after a step there: stats.)
                    soft.assertThat(thread).as("thread that committed the answer to %s", line)
                            .containsPattern("^[a-z]+-http-[a-z_]+-[0-9]+");
                }
            }
        }
        soft.assertAll();
    }
}
