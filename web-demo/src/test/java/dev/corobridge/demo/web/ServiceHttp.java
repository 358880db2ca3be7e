package dev.corobridge.demo.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import tools.jackson.databind.json.JsonMapper;

/** The service on a port, through the JDK's HTTP client: JSON posts and the live subscriber count. For tests. */
final class ServiceHttp {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpClient http = HttpClient.newHttpClient();
    private final int port;

    ServiceHttp(int port) {
        this.port = port;
    }

    /** {@code POST path} with a JSON body. */
    HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A new board's id. */
    String newBoard(String name) throws IOException, InterruptedException {
        return JSON.readTree(post("/api/boards", "{\"name\":\"" + name + "\"}").body()).path("id").asString();
    }

    /** The event-stream subscriptions the pump holds now ({@code /api/live}). */
    int subscribers() throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri("/api/live")).build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body()).path("pump").path("subscribers").asInt();
    }

    /** {@code HEAD path} of an event stream. */
    HttpResponse<String> headOfStream(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Accept", "text/event-stream")
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code GET path} of an event stream that ends (an unknown board's, say). */
    HttpResponse<String> getOfStream(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).header("Accept", "text/event-stream").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://localhost:" + port + path);
    }
}
