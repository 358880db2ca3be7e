package dev.corobridge.demo.web;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An HTTP/1.1 connection over a plain socket, for tests that must see the wire: raw bytes out, one
 * response (framed by {@code Content-Length}) in, and whether the server then closed the
 * connection. Not thread-safe.
 */
public final class RawHttp implements AutoCloseable {

    /** A response; header names in lower case. */
    public record Response(int status, Map<String, String> headers, String body, String reason) {
        public String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(int port) throws IOException {
        socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        socket.setSoTimeout(60_000); // a test fails rather than hangs when the server never answers
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** Sends raw bytes (a request, or part of one). */
    public void send(String ascii) throws IOException {
        out.write(ascii.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** Sends raw bytes (a request, or part of one). */
    public void send(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends one request and reads its response. */
    public Response exchange(byte[] request) throws IOException {
        send(request);
        return read();
    }

    /** Sends one request and reads its response. */
    public Response exchange(String ascii) throws IOException {
        send(ascii);
        return read();
    }

    /** A complete JSON request, keeping the connection alive. */
    public static String json(String method, String path, String json) {
        return method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Accept: application/json\r\nContent-Length: " + json.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + json;
    }

    /** A GET request, keeping the connection alive. */
    public static String get(String path) {
        return "GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n";
    }

    /** Reads one response with a {@code Content-Length} (or none, meaning an empty body). */
    public Response read() throws IOException {
        String status = line();
        Map<String, String> headers = new LinkedHashMap<>();
        for (String h = line(); !h.isEmpty(); h = line()) {
            int colon = h.indexOf(':');
            headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT), h.substring(colon + 1).trim());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        if (body.length < length) {
            throw new EOFException("connection closed in a body");
        }
        return new Response(Integer.parseInt(status.substring(9, 12)), headers, new String(body, StandardCharsets.UTF_8),
                status.length() > 13 ? status.substring(13) : "");
    }

    /** Reads a response's status line only (the start of a stream, say). */
    public String readStatusLine() throws IOException {
        return line();
    }

    /** Reads one line of a head (without its line end). */
    public String readLine() throws IOException {
        return line();
    }

    /** Everything the server sends until it closes the connection, as Latin-1. */
    public String readToEnd() throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    /** Whether the server closed the connection (reads until the end of the stream). */
    public boolean closedByServer() throws IOException {
        return in.read() < 0;
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("connection closed without a (complete) response");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    /**
     * Half-closes the connection: no more bytes from this side (a FIN), while the answers can still
     * be read, as a client that sends its requests and then shuts its output does.
     */
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    /** Resets the connection (RST): {@code SO_LINGER} 0, then close, as a client that aborts does. */
    public void reset() throws IOException {
        socket.setSoLinger(true, 0);
        socket.close();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
