package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.corobridge.demo.web.LiveServiceTestBase;
import dev.corobridge.demo.web.RawHttp;

/**
 * Client mistakes and aborts are not the service's faults: a client that goes away in the middle of
 * a body, and a chunked body the server cannot decode, are logged at DEBUG (one line, no stack), never
 * as ERROR; at most the rate-limited summary ({@link ClientFaultSummary}) is a WARN line. The test waits for the service's own line about each request (the DEBUG line it logs, or
 * the ERROR it must not log), then checks the whole log of the test.
 */
@ExtendWith(OutputCaptureExtension.class)
class ClientFaultLogTest extends LiveServiceTestBase {

    @Autowired
    ConnectionTracker tracker;

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void aClientThatLeavesMidBodyIsNoError(CapturedOutput output) throws Exception {
        for (String face : FACES) {
            String path = notesOfANewBoard(face);
            int from = output.getAll().length();
            startNote(path).close(); // closed with 977 bytes of the body missing
            assertNoErrors(output, from, awaitLineAbout(output, from, path));
        }
    }

    /**
     * A client that resets its connection (RST) while its body is being read: Reactor Netty delivered
     * the reset to the body's reader twice, and the second delivery was logged as an ERROR with its
     * stack ("Operator called default onErrorDropped").
     */
    @Test
    void aClientThatResetsMidBodyIsNoError(CapturedOutput output) throws Exception {
        for (String face : FACES) {
            String path = notesOfANewBoard(face);
            for (int i = 0; i < 3; i++) {
                int from = output.getAll().length();
                RawHttp c = startNote(path);
                awaitLineAbout(output, from, "http: POST " + path); // the handler is reading the body
                c.reset();
                String line = awaitLineAbout(output, from, path + " ended by the client");
                awaitConnectionsClosed(); // Netty reports the close after it has failed the exchange
                assertNoErrors(output, from, line);
            }
        }
    }

    /** A client that resets an open event stream: nothing to answer, no error. */
    @Test
    void aClientThatResetsAnEventStreamIsNoError(CapturedOutput output) throws Exception {
        for (String face : FACES) {
            String b = createBoard(face, "streaming");
            int from = output.getAll().length();
            RawHttp c = new RawHttp(port);
            c.send(request("GET", face + "/boards/" + b + "/events", List.of("Accept: text/event-stream"), null));
            assertThat(c.readStatusLine()).contains(" 200 ");
            c.reset();
            awaitConnectionsClosed();
            assertNoErrors(output, from, null);
        }
    }

    @Test
    void anUndecodableChunkedBodyIsAClientMistakeNotAnError(CapturedOutput output) throws Exception {
        for (String face : FACES) {
            String path = notesOfANewBoard(face);
            int from = output.getAll().length();
            try (RawHttp c = new RawHttp(port)) {
                RawHttp.Response r = c.exchange(request("POST", path, List.of("Content-Type: application/json",
                        "Transfer-Encoding: chunked"), "zz\r\n{\"text\":\"x\"}\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
                assertThat(r.status()).isEqualTo(400);
            }
            String line = awaitLineAbout(output, from, path);
            assertNoErrors(output, from, line);
        }
    }

    /** The path of the notes of a new board on this face. */
    private String notesOfANewBoard(String face) throws IOException {
        return face + "/boards/" + createBoard(face, "faults") + "/notes";
    }

    /** A connection that sent a note's head and the start of its body, 977 bytes short. */
    private RawHttp startNote(String path) throws IOException {
        RawHttp c = new RawHttp(port);
        c.send(request("POST", path, List.of("Content-Type: application/json", "Content-Length: 1000"),
                "{\"text\":\"only the start".getBytes(StandardCharsets.US_ASCII)));
        return c;
    }

    /** The first log line after {@code from} that names {@code path} (the service's own account of the request). */
    private static String awaitLineAbout(CapturedOutput output, int from, String path) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            String line = output.getAll().substring(from).lines().filter(l -> l.contains(path)).findFirst().orElse(null);
            if (line != null) {
                return line;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("nothing was logged about " + path + " within " + WAIT);
    }

    /** Waits until the server has closed every connection (the tests' clients all closed theirs). */
    private void awaitConnectionsClosed() {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (tracker.open() > 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("connections still open after " + WAIT + ": " + tracker);
            }
            Thread.onSpinWait();
        }
    }

    private static void assertNoErrors(CapturedOutput output, int from, String line) throws IOException {
        String log = output.getAll().substring(from);
        if (line != null) {
            assertThat(line).as("the line about the request").contains(" DEBUG ");
        }
        assertThat(log.lines().filter(l -> l.contains(" ERROR "))).as("ERROR lines in:\n%s", log).isEmpty();
        // At most the one rate-limited summary line (ClientFaultBurstTest), no other WARN.
        assertThat(log.lines().filter(l -> l.contains(" WARN ") && !l.contains(ClientFaultSummary.class.getSimpleName())))
                .as("WARN lines in:\n%s", log).isEmpty();
        assertThat(log.lines().filter(l -> l.contains(" WARN "))).as("WARN lines in:\n%s", log).hasSizeLessThanOrEqualTo(1);
        assertThat(log.lines().filter(l -> l.startsWith("\tat "))).as("stack frames in:\n%s", log).isEmpty();
    }
}
