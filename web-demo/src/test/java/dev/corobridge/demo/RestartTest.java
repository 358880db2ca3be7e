package dev.corobridge.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;

import org.springframework.web.reactive.function.client.WebClient;

/**
 * Closing the service and starting a new one on the same data directory: every acknowledged change
 * is there, with the same ids, versions and revisions, and new ids do not collide with old ones.
 */
class RestartTest {

    private static final Duration T = Duration.ofSeconds(60);

    @TempDir
    Path data;

    @Test
    void everyAcknowledgedChangeSurvivesARestart() {
        String before;
        List<String> boards = new ArrayList<>();
        try (ConfigurableApplicationContext first = start()) {
            WebTestClient http = client(first);
            WebClient web = WebClient.create("http://localhost:" + port(first));
            for (int i = 0; i < 3; i++) {
                boards.add((String) http.post().uri("/api/boards").contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(Map.of("name", "board " + i)).exchange().expectStatus().isCreated()
                        .expectBody(Map.class).returnResult().getResponseBody().get("id"));
            }
            // Concurrent writers from both faces, so commits are shared.
            Flux.range(0, 150).flatMap(i -> web.post()
                    .uri((i % 2 == 0 ? "/api" : "/api/kt") + "/boards/{b}/notes", boards.get(i % 3))
                    .contentType(MediaType.APPLICATION_JSON).bodyValue(Map.of("text", "note " + i))
                    .retrieve().toBodilessEntity(), 16).blockLast(T);
            String n0 = firstNote(http, boards.get(0));
            String n1 = firstNote(http, boards.get(1));
            http.put().uri("/api/boards/{b}/notes/{n}", boards.get(0), n0).contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("text", "edited", "expectedVersion", 1)).exchange().expectStatus().isOk();
            http.delete().uri("/api/kt/boards/{b}/notes/{n}", boards.get(1), n1).exchange().expectStatus().isNoContent();
            before = everything(http, boards);
        }
        assertThat(Files.exists(data.resolve("journal.log"))).isTrue();
        try (ConfigurableApplicationContext second = start()) {
            WebTestClient http = client(second);
            // The journal's total counts over every run: 3 boards, 150 notes, an edit and a delete.
            http.get().uri("/api/live").exchange().expectStatus().isOk().expectBody()
                    .jsonPath("$.journal.total").isEqualTo(155).jsonPath("$.journal.changes").isEqualTo(0);
            assertThat(everything(http, boards)).isEqualTo(before);
            String fresh = (String) http.post().uri("/api/boards/{b}/notes", boards.get(2))
                    .contentType(MediaType.APPLICATION_JSON).bodyValue(Map.of("text", "after restart")).exchange()
                    .expectStatus().isCreated().expectBody(Map.class).returnResult().getResponseBody().get("id");
            assertThat(Long.parseLong(fresh.substring(1))).isGreaterThan(150);
        }
    }

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(NotesBoardApplication.class)
                .run("--server.port=0", "--demo.data-dir=" + data, "--spring.lifecycle.timeout-per-shutdown-phase=10s");
    }

    private static int port(ConfigurableApplicationContext ctx) {
        return Integer.parseInt(ctx.getEnvironment().getProperty("local.server.port"));
    }

    private static WebTestClient client(ConfigurableApplicationContext ctx) {
        return WebTestClient.bindToServer().baseUrl("http://localhost:" + port(ctx)).responseTimeout(T).build();
    }

    @SuppressWarnings("unchecked")
    private static String firstNote(WebTestClient http, String board) {
        Map<String, Object> snapshot = http.get().uri("/api/boards/{b}", board).exchange().expectStatus().isOk()
                .expectBody(Map.class).returnResult().getResponseBody();
        return (String) ((List<Map<String, Object>>) snapshot.get("notes")).get(0).get("id");
    }

    private static String everything(WebTestClient http, List<String> boards) {
        StringBuilder b = new StringBuilder(http.get().uri("/api/boards").exchange().expectStatus().isOk()
                .expectBody(String.class).returnResult().getResponseBody());
        for (String id : boards) {
            b.append('\n').append(http.get().uri("/api/boards/{b}", id).exchange().expectStatus().isOk()
                    .expectBody(String.class).returnResult().getResponseBody());
        }
        return b.toString();
    }
}
