package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import dev.corobridge.demo.web.LiveServiceTestBase;
import dev.corobridge.demo.web.RawHttp;

/**
 * Requests refused before Spring sees them, by the HTTP decoder: the answer is problem JSON too
 * (414 for an overlong request line, 431 for oversized headers, 400 for what is not HTTP/1.1), with
 * {@code Connection: close}, and the connection closes; the service goes on serving others.
 */
class TransportProblemTest extends LiveServiceTestBase {

    private void refused(String name, byte[] request, int status) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send(request);
            RawHttp.Response r = c.read();
            assertThat(r.status()).as(name).isEqualTo(status);
            assertThat(problem(r, status)).as(name).isNotBlank();
            assertThat(r.header("connection")).as(name).isEqualToIgnoringCase("close");
            assertThat(c.closedByServer()).as(name).isTrue();
        }
    }

    /** {@link #refused} whose problem detail says {@code detail}. */
    private void refused(String name, byte[] request, int status, String detail) throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send(request);
            RawHttp.Response r = c.read();
            assertThat(r.status()).as(name).isEqualTo(status);
            assertThat(problem(r, status)).as(name).contains(detail);
            assertThat(c.closedByServer()).as(name).isTrue();
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void decoderRefusalsAreProblemJson() throws Exception {
        String before = state();
        refused("an 8 KB board id", ascii("GET /api/boards/b" + "1".repeat(8 * 1024) + " HTTP/1.1\r\nHost: x\r\n\r\n"), 414);
        refused("a 100 KB URL", ascii("GET /api/ping?q=" + "a".repeat(100 * 1024) + " HTTP/1.1\r\nHost: x\r\n\r\n"), 414);
        StringBuilder many = new StringBuilder("GET /api/ping HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 1000; i++) {
            many.append("X-H").append(i).append(": v\r\n");
        }
        refused("1000 headers", ascii(many.append("\r\n").toString()), 431);
        refused("a 16 KB header", ascii("GET /api/ping HTTP/1.1\r\nHost: x\r\nX-Big: " + "v".repeat(16 * 1024) + "\r\n\r\n"), 431);
        refused("two different Content-Lengths", ascii("POST /api/boards HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: 12\r\nContent-Length: 13\r\n\r\n{\"name\":\"x\"}"), 400);
        refused("a Content-Length that is not a number", ascii("POST /api/boards HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nContent-Length: twelve\r\n\r\n{\"name\":\"x\"}"), 400);
        refused("NUL in a header", ascii("GET /api/ping HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n"), 400);
        refused("a header without a colon", ascii("GET /api/ping HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"), 400);
        refused("TLS bytes", new byte[] {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, (byte) 0xfc, 0x03, 0x03, '\r', '\n', '\r', '\n'}, 400);
        assertThat(state()).isEqualTo(before);
    }

    /**
     * Request lines the HTTP decoder reads but the layers above it refuse: a request target that is
     * not a URI (Spring's refusal was an empty 400), and HTTP/2 spoken to an HTTP/1.1 connection
     * (Reactor Netty's refusal was an empty 400).
     */
    @Test
    void requestLinesRefusedAboveTheDecoderAreProblemJson() throws Exception {
        String before = state();
        for (String face : FACES) {
            refused(face + ": a NUL byte in the path",
                    ascii("GET " + face + "/boards/b1\u0000 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        }
        refused("a NUL byte inside a path segment", ascii("GET /api/bo\u0000ards HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("a NUL byte in the query", ascii("GET /api/ping?a=\u0000 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("a NUL byte in a POST's path", ascii("POST /api/boards\u0000 HTTP/1.1\r\nHost: x\r\n"
                + "Content-Type: application/json\r\nContent-Length: 12\r\n\r\n{\"name\":\"x\"}"), 400);
        refused("SOH in the path", ascii("GET /api/\u0001ping HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("ESC in the path", ascii("GET /api/\u001bping HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("DEL in the path", ascii("GET /api/\u007fping HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("a backslash in the path", ascii("GET /api\\ping HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("brackets in the path", ascii("GET /api/[ping] HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("a broken percent escape", ascii("GET /api/%zzping HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        // Bytes outside ASCII sent raw (RFC 9112: the target is ASCII; UTF-8 goes percent-encoded),
        // and a fragment, which a client keeps to itself: both used to be served.
        refused("a raw 0xFF in the query", "GET /api/ping?\u00ff HTTP/1.1\r\nHost: x\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1), 400);
        refused("raw UTF-8 in the query", "GET /api/ping?q=\u00e9 HTTP/1.1\r\nHost: x\r\n\r\n"
                .getBytes(StandardCharsets.UTF_8), 400);
        refused("raw UTF-8 in the path", "GET /api/boards/b\u0661 HTTP/1.1\r\nHost: x\r\n\r\n"
                .getBytes(StandardCharsets.UTF_8), 400);
        refused("a fragment", ascii("GET /api/ping#frag HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("a fragment after a query", ascii("GET /api/boards?x=1#frag HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("HTTP/2.0 in an HTTP/1.1 request line", ascii("GET /api/ping HTTP/2.0\r\nHost: x\r\n\r\n"), 400,
                "HTTP/2 is not served");
        refused("the HTTP/2 connection preface", ascii("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), 400, "HTTP/2 is not served");
        assertThat(state()).isEqualTo(before);
        // The service goes on serving.
        assertThat(exchange(request("GET", "/api/ping", java.util.List.of(), null)).status()).isEqualTo(200);
    }

    /**
     * RFC 9112, section 3.2: a request target is a path from {@code /} (origin-form), an absolute
     * URI (absolute-form, which a server must accept), {@code host:port} for {@code CONNECT} only or
     * {@code *} for {@code OPTIONS} only; anything else is answered 400. A relative path, a bare
     * query and an asterisk or authority with another method were served as if they named the
     * service's root or a path under it (a 404 or even a 200).
     */
    @Test
    void aTargetInNoneOfTheFormsIsProblemJson() throws Exception {
        String before = state();
        refused("a relative path", ascii("GET api/ping HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("a relative path to a board", ascii("GET api/boards HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("a bare query", ascii("GET ?a=1 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("an asterisk with GET", ascii("GET * HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("an asterisk with POST", ascii("POST * HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Content-Length: 12\r\n\r\n{\"name\":\"x\"}"), 400);
        refused("an authority with GET", ascii("GET localhost:8080 HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("an absolute URI of another scheme", ascii("GET ftp://x/api/ping HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        refused("an absolute URI without a host", ascii("GET http:/api/ping HTTP/1.1\r\nHost: x\r\n\r\n"), 400);
        assertThat(state()).isEqualTo(before);
        assertThat(exchange(ascii("GET http://x/api/ping HTTP/1.1\r\nHost: x\r\n\r\n")).status())
                .as("the absolute-form").isEqualTo(200);
        assertThat(exchange(ascii("GET HTTP://x:80/api/ping?a HTTP/1.1\r\nHost: x\r\n\r\n")).status())
                .as("the absolute-form, its scheme in capitals").isEqualTo(200);
        assertThat(exchange(ascii("GET /api/ping HTTP/1.1\r\nHost: x\r\n\r\n")).status()).isEqualTo(200);
    }

    /**
     * RFC 9112 section 3.2: an HTTP/1.1 request carries exactly one {@code Host} header, and no
     * request carries two, nor one that is not a host and optional port (RFC 3986, section 3.2.2;
     * a port up to 65535); a server answers 400 otherwise. A request line of another HTTP major
     * version than 1 is refused like the HTTP/2 one above. HTTP/1.0 needs no {@code Host}.
     */
    @Test
    void aRequestWithoutExactlyOneHostOrOfAnotherHttpVersionIsProblemJson() throws Exception {
        String before = state();
        refused("HTTP/1.1 without Host", ascii("GET /api/ping HTTP/1.1\r\n\r\n"), 400);
        refused("a write without Host", ascii("POST /api/boards HTTP/1.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: 12\r\n\r\n{\"name\":\"x\"}"), 400);
        refused("two Host headers", ascii("GET /api/ping HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n"), 400);
        refused("the same Host twice", ascii("GET /api/ping HTTP/1.1\r\nHost: x\r\nHost: x\r\n\r\n"), 400);
        refused("two Host headers in HTTP/1.0", ascii("GET /api/ping HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n"), 400);
        for (String host : new String[] {"a b", "x:99999999", "x:65536", "x:80:80", "x:8o", "a/b", "a@b", "[::1", "x\u007f", "a\"b"}) {
            refused("Host: " + host, ascii("GET /api/ping HTTP/1.1\r\nHost: " + host + "\r\n\r\n"), 400);
        }
        refused("HTTP/3.0", ascii("GET /api/ping HTTP/3.0\r\nHost: x\r\n\r\n"), 400);
        refused("HTTP/0.9 with a version", ascii("GET /api/ping HTTP/0.9\r\nHost: x\r\n\r\n"), 400);
        assertThat(state()).isEqualTo(before);
        try (RawHttp c = new RawHttp(port)) {
            c.send(ascii("GET /api/ping HTTP/1.0\r\n\r\n"));
            assertThat(c.read().status()).as("HTTP/1.0 without Host").isEqualTo(200);
        }
        for (String host : new String[] {"localhost", "localhost:8080", "127.0.0.1:1", "[::1]:443", "xn--bcher-kva.example", "a_b.local", ""}) {
            assertThat(exchange(ascii("GET /api/ping HTTP/1.1\r\nHost: " + host + "\r\n\r\n")).status())
                    .as("Host: %s", host).isEqualTo(200);
        }
        assertThat(exchange(request("GET", "/api/ping", java.util.List.of(), null)).status()).isEqualTo(200);
    }

    @Test
    void aBadChunkInsideABodyIsProblemJsonWhenNothingWasAnsweredYet() throws Exception {
        for (String face : FACES) {
            String b = createBoard(face, "chunks " + face);
            String notes = face + "/boards/" + b + "/notes";
            String before = state();
            String head = "POST " + notes + " HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n";
            refused(face + ": a chunk size that is not hex", ascii(head + "zz\r\n{\"text\":\"x\"}\r\n0\r\n\r\n"), 400);
            refused(face + ": a bad chunk size after a good chunk", ascii(head + "4\r\n{\"te\r\n-1\r\nxt\":\"x\"}\r\n0\r\n\r\n"), 400);
            refused(face + ": a chunk size beyond any length", ascii(head + "fffffffffffffffffff\r\n{\"text\":\"x\"}\r\n0\r\n\r\n"), 400);
            assertThat(state()).isEqualTo(before);
        }
        // The service goes on serving.
        assertThat(exchange(request("GET", "/api/ping", java.util.List.of(), null)).status()).isEqualTo(200);
    }

    @Test
    void aBadChunkAfterACompleteAnswerIsProblemJsonToo() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            // text/plain is refused with 415 before the body is read; then the body goes wrong.
            c.send(ascii("POST /api/boards HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n"));
            RawHttp.Response first = c.read();
            assertThat(first.status()).isEqualTo(415);
            c.send(ascii("zz\r\nabc\r\n0\r\n\r\n"));
            // Reactor Netty answers the broken body after the complete 415: problem JSON as well.
            RawHttp.Response second = c.read();
            assertThat(problem(second, 400)).contains("chunked");
            assertThat(second.header("connection")).isEqualToIgnoringCase("close");
            assertThat(c.closedByServer()).isTrue();
        }
        // The service goes on serving.
        assertThat(exchange(request("GET", "/api/ping", java.util.List.of(), null)).status()).isEqualTo(200);
    }
}
