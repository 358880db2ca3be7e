package dev.corobridge.it;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP/1.1 connection over a plain socket, for tests that must see exactly what happens on the
 * wire: whether a connection was established, whether a request's bytes were written, and whether
 * a complete response came back or the connection was reset or closed without one (which a pooled
 * client such as {@code java.net.http.HttpClient} would hide behind a retry or a generic error).
 *
 * <p>{@link #exchange} writes one request in a single write and reads exactly one response (framed
 * by {@code Content-Length}, chunked encoding, or the end of the stream), so the connection can be
 * reused when the server keeps it alive. Not thread-safe: one thread per connection.
 */
final class RawHttpConnection implements AutoCloseable {

    /** One complete response: status, headers (names in lower case, in arrival order) and body. */
    record Response(int status, Map<String, List<String>> headers, String body) {

        Optional<String> header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null || values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
        }

        /** Whether the server announced that it closes the connection after this response. */
        boolean closesConnection() {
            return header("connection").map(v -> v.toLowerCase(Locale.ROOT).contains("close")).orElse(false);
        }

        /** {@code Retry-After} in seconds, if present and a number of seconds. */
        Optional<Integer> retryAfterSeconds() {
            return header("retry-after").flatMap(v -> {
                try {
                    return Optional.of(Integer.parseInt(v.trim()));
                } catch (NumberFormatException e) {
                    return Optional.empty();
                }
            });
        }

        String contentType() {
            return header("content-type").orElse("");
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final int port;

    private RawHttpConnection(Socket socket, int port) throws IOException {
        this.socket = socket;
        this.port = port;
        this.in = new BufferedInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Connects to 127.0.0.1:port.
     *
     * @throws java.net.ConnectException if the connection was refused (nothing was sent)
     */
    static RawHttpConnection open(int port) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(60_000);
            socket.setTcpNoDelay(true);
            return new RawHttpConnection(socket, port);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /**
     * Writes one JSON request and reads its response.
     *
     * @param keepAlive false to send {@code Connection: close}
     * @throws IOException if the connection was reset or closed before a complete response arrived
     */
    Response exchange(String method, String path, byte[] body, boolean keepAlive) throws IOException {
        String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
                + (keepAlive ? "" : "Connection: close\r\n")
                + "Content-Type: application/json\r\nAccept: application/json\r\nContent-Length: " + body.length + "\r\n\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, request, 0, headBytes.length);
        System.arraycopy(body, 0, request, headBytes.length, body.length);
        out.write(request);
        out.flush();
        return readResponse();
    }

    private Response readResponse() throws IOException {
        String statusLine = readLine(true);
        if (!statusLine.startsWith("HTTP/1.1 ") || statusLine.length() < 12) {
            throw new IOException("not an HTTP/1.1 status line: '" + statusLine + "'");
        }
        int status = Integer.parseInt(statusLine.substring(9, 12));
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (String line = readLine(false); !line.isEmpty(); line = readLine(false)) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                throw new IOException("malformed header line: '" + line + "'");
            }
            headers.computeIfAbsent(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                    .add(line.substring(colon + 1).trim());
        }
        Response framing = new Response(status, headers, "");
        ByteArrayOutputStream payload = new ByteArrayOutputStream();
        if (framing.header("transfer-encoding").map(v -> v.toLowerCase(Locale.ROOT).contains("chunked")).orElse(false)) {
            readChunked(payload);
        } else if (framing.header("content-length").isPresent()) {
            readExactly(payload, Long.parseLong(framing.header("content-length").get().trim()));
        } else if (status != 204 && status != 304 && status >= 200) {
            in.transferTo(payload); // delimited by the end of the connection
        }
        return new Response(status, headers, payload.toString(StandardCharsets.UTF_8));
    }

    private void readChunked(ByteArrayOutputStream payload) throws IOException {
        while (true) {
            String sizeLine = readLine(false);
            int semicolon = sizeLine.indexOf(';');
            long size = Long.parseLong((semicolon >= 0 ? sizeLine.substring(0, semicolon) : sizeLine).trim(), 16);
            if (size == 0) {
                while (!readLine(false).isEmpty()) {
                    // trailer fields: ignored
                }
                return;
            }
            readExactly(payload, size);
            if (!readLine(false).isEmpty()) {
                throw new IOException("chunk not followed by CRLF");
            }
        }
    }

    private void readExactly(ByteArrayOutputStream payload, long n) throws IOException {
        byte[] buf = new byte[8192];
        long left = n;
        while (left > 0) {
            int r = in.read(buf, 0, (int) Math.min(buf.length, left));
            if (r < 0) {
                throw new EOFException("connection closed " + (n - left) + " bytes into a body of " + n);
            }
            payload.write(buf, 0, r);
            left -= r;
        }
    }

    /** A CRLF-terminated line without its CRLF; at the very start of a response, says so on EOF. */
    private String readLine(boolean first) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(64);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException(first && line.size() == 0
                        ? "connection closed without a response"
                        : "connection closed in the middle of a response");
            }
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, len, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing: nothing left to do
        }
    }
}
