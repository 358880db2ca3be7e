package dev.corobridge.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * A small HTTP/1.1 client for the notes board API: JSON in and out, the {@code Hop-Trace}
 * header, problem JSON. One instance is safe to share between threads (it wraps one
 * {@link HttpClient} and its connection pool).
 */
public final class Http {

    public static final ObjectMapper JSON = new ObjectMapper();

    private final URI base;
    private final HttpClient client;
    private final Duration timeout;

    public Http(String baseUrl) {
        this(baseUrl, Duration.ofSeconds(30));
    }

    public Http(String baseUrl, Duration timeout) {
        this.base = URI.create(baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl);
        this.timeout = timeout;
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    public String baseUrl() {
        return base.toString();
    }

    public HttpClient client() {
        return client;
    }

    /** A URI under the base; {@code rawPath} is sent as written (no normalisation, no encoding). */
    public URI uri(String rawPath) {
        return URI.create(base + rawPath);
    }

    public Response get(String path) {
        return send("GET", path, null, null, Map.of());
    }

    public Response postJson(String path, Object body) {
        return send("POST", path, "application/json", json(body), Map.of());
    }

    public Response putJson(String path, Object body) {
        return send("PUT", path, "application/json", json(body), Map.of());
    }

    public Response delete(String path) {
        return send("DELETE", path, null, null, Map.of());
    }

    /** Any request: {@code contentType} and {@code body} may be null; headers are added as given. */
    public Response send(String method, String rawPath, String contentType, byte[] body, Map<String, String> headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(rawPath)).timeout(timeout);
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        headers.forEach(b::header);
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        try {
            HttpResponse<byte[]> r = client.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
            return new Response(method + " " + rawPath, r.statusCode(), r.headers().map(), r.body());
        } catch (IOException e) {
            throw new UncheckedIOException(method + " " + rawPath + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + method + " " + rawPath, e);
        }
    }

    /**
     * Writes {@code request} exactly as given on a connection of its own and reads one response
     * (framed by {@code Content-Length}, or up to the end of the stream); for requests a client
     * library would not send. The connection is closed afterwards.
     */
    public Response sendRaw(String description, byte[] request) {
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress(base.getHost(), base.getPort()), 10_000);
            socket.setSoTimeout((int) timeout.toMillis());
            socket.getOutputStream().write(request);
            socket.getOutputStream().flush();
            java.io.InputStream in = new java.io.BufferedInputStream(socket.getInputStream());
            String statusLine = rawLine(in);
            if (statusLine == null) {
                throw new UncheckedIOException(new java.io.EOFException(description + ": the connection closed without a response"));
            }
            Map<String, java.util.List<String>> headers = new java.util.LinkedHashMap<>();
            for (String h = rawLine(in); h != null && !h.isEmpty(); h = rawLine(in)) {
                int colon = h.indexOf(':');
                headers.computeIfAbsent(h.substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT),
                        k -> new java.util.ArrayList<>()).add(h.substring(colon + 1).trim());
            }
            java.util.List<String> length = headers.get("content-length");
            byte[] body = length != null ? in.readNBytes(Integer.parseInt(length.get(0))) : in.readAllBytes();
            return new Response(description, Integer.parseInt(statusLine.substring(9, 12)), headers, body);
        } catch (IOException e) {
            throw new UncheckedIOException(description + ": " + e, e);
        }
    }

    private static String rawLine(java.io.InputStream in) throws IOException {
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    public static byte[] json(Object body) {
        if (body instanceof byte[] bytes) {
            return bytes;
        }
        if (body instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        try {
            return JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ObjectNode obj(Object... keyValues) {
        ObjectNode n = JSON.createObjectNode();
        for (int i = 0; i < keyValues.length; i += 2) {
            n.set((String) keyValues[i], JSON.valueToTree(keyValues[i + 1]));
        }
        return n;
    }

    /** One response, read whole. */
    public record Response(String request, int status, Map<String, java.util.List<String>> headers, byte[] bytes) {

        public String body() {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        public Optional<String> header(String name) {
            for (var e : headers.entrySet()) {
                if (e.getKey().equalsIgnoreCase(name) && !e.getValue().isEmpty()) {
                    return Optional.of(e.getValue().getFirst());
                }
            }
            return Optional.empty();
        }

        public String contentType() {
            return header("Content-Type").orElse("");
        }

        public JsonNode json() {
            try {
                return JSON.readTree(bytes);
            } catch (IOException e) {
                throw new AssertionError(request + " -> " + status + ": body is not JSON: " + abbreviated(), e);
            }
        }

        /** Asserts the status and returns the JSON body. */
        public JsonNode expect(int expected) {
            if (status != expected) {
                throw new AssertionError(request + ": expected " + expected + " but got " + status + " " + abbreviated());
            }
            return bytes.length == 0 ? null : json();
        }

        public String abbreviated() {
            String b = body();
            return b.length() > 400 ? b.substring(0, 400) + "...(" + b.length() + " chars)" : b;
        }

        public HopTrace hopTrace() {
            return HopTrace.parse(request, header("Hop-Trace").orElse(null));
        }
    }
}
