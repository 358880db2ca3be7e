package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A subscriber of {@code GET /api/boards/{id}/events}: reads the event stream on a virtual thread
 * and queues every event. {@link #close()} drops the connection.
 */
public final class SseStream implements AutoCloseable {

    /** One server-sent event; {@code data} is parsed as JSON. */
    public record Event(String id, String type, String data) {
        public JsonNode json() {
            try {
                return Http.JSON.readTree(data);
            } catch (IOException e) {
                throw new AssertionError("SSE data is not JSON: " + data, e);
            }
        }
    }

    private static final Event END = new Event(null, "<end>", null);

    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final InputStream body;
    private final Thread reader;
    private final int status;
    private final String contentType;
    private volatile boolean ended;
    private volatile Throwable failure;

    private SseStream(HttpResponse<InputStream> response) {
        this.status = response.statusCode();
        this.contentType = response.headers().firstValue("Content-Type").orElse("");
        this.body = response.body();
        this.reader = Thread.ofVirtual().name("sse-reader").start(this::readLoop);
    }

    public static SseStream open(Http http, String path) {
        HttpRequest req = HttpRequest.newBuilder(http.uri(path)).header("Accept", "text/event-stream").GET().build();
        try {
            return new SseStream(http.client().send(req, HttpResponse.BodyHandlers.ofInputStream()));
        } catch (IOException e) {
            throw new AssertionError("GET " + path + " (events): " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    public int status() {
        return status;
    }

    public String contentType() {
        return contentType;
    }

    private void readLoop() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String id = null;
            String type = null;
            StringBuilder data = null;
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) {
                    if (data != null) {
                        events.add(new Event(id, type == null ? "message" : type, data.toString()));
                    }
                    id = null;
                    type = null;
                    data = null;
                    continue;
                }
                if (line.startsWith(":")) {
                    continue; // comment / heartbeat
                }
                int colon = line.indexOf(':');
                String field = colon < 0 ? line : line.substring(0, colon);
                String value = colon < 0 ? "" : line.substring(colon + 1);
                if (value.startsWith(" ")) {
                    value = value.substring(1);
                }
                switch (field) {
                    case "id" -> id = value;
                    case "event" -> type = value;
                    case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                    default -> { }
                }
            }
        } catch (IOException e) {
            if (!ended) {
                failure = e;
            }
        } finally {
            ended = true;
            events.add(END);
        }
    }

    /** The next event, or an AssertionError after the timeout or at the end of the stream. */
    public Event next(Duration timeout) {
        try {
            Event e = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (e == null) {
                throw new AssertionError("no SSE event within " + timeout);
            }
            if (e == END) {
                events.add(END);
                throw new AssertionError("SSE stream ended" + (failure == null ? "" : ": " + failure));
            }
            return e;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", ex);
        }
    }

    /** Waits until the stream ends (the server closed it); true if it did within the timeout. */
    public boolean awaitEnd(Duration timeout) {
        try {
            reader.join(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return ended;
    }

    /** Events queued so far (without waiting). */
    public List<Event> drain() {
        List<Event> out = new ArrayList<>();
        events.drainTo(out);
        if (out.remove(END)) {
            events.add(END);
        }
        return out;
    }

    @Override
    public void close() {
        ended = true;
        try {
            body.close();
        } catch (IOException ignored) {
            // closing drops the connection; nothing to report
        }
        reader.interrupt();
    }
}
