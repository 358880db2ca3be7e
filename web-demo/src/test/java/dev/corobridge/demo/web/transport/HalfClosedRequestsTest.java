package dev.corobridge.demo.web.transport;

import static org.assertj.core.api.Assertions.assertThat;


import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import dev.corobridge.demo.web.LiveServiceTestBase;
import dev.corobridge.demo.web.RawHttp;
import tools.jackson.databind.JsonNode;

/**
 * A client that sends its requests and then shuts its output down (a half-close: a FIN, while it
 * still reads) gets every request it sent whole answered, and then the connection closes (the last
 * answer says {@code Connection: close} if the end of stream came before it began). A long poll is
 * not held for such a client beyond a short grace, and an event stream ends at once: a client that
 * closed its connection looks the same, and its waits must not stay behind. Before, the FIN
 * closed the connection at once: an answer that came after a pump hop was lost whenever the FIN
 * arrived first, so the same request was answered or not by chance. Endpoints answered on the
 * event loop (ping) and after a pump hop (a board snapshot, both faces; a write) are sent, each many
 * times, as the loss depended on timing.
 */
@ExtendWith(OutputCaptureExtension.class)
class HalfClosedRequestsTest extends LiveServiceTestBase {

    private static final int ROUNDS = 25;

    private String createBoard() throws Exception {
        return createBoard("/api", "half-closed");
    }

    static Stream<Arguments> targetsAndRequestsBefore() {
        return Stream.of("/api/ping", "/api/boards/{id}", "/api/kt/boards/{id}")
                .flatMap(t -> Stream.of(0, 2).map(n -> Arguments.of(t, n)));
    }

    @ParameterizedTest(name = "{0} with {1} before")
    @MethodSource("targetsAndRequestsBefore")
    void everyRequestSentBeforeAHalfCloseIsAnsweredThenTheConnectionCloses(String target, int before) throws Exception {
        String path = target.replace("{id}", createBoard());
        for (int round = 0; round < ROUNDS; round++) {
            try (RawHttp c = new RawHttp(port)) {
                c.send(RawHttp.get(path).repeat(before + 1));
                c.shutdownOutput();
                List<Integer> statuses = new ArrayList<>();
                for (int i = 0; i <= before; i++) {
                    statuses.add(c.read().status());
                }
                assertThat(statuses).as("round %d: answers", round).containsOnly(200).hasSize(before + 1);
                // The last answer says Connection: close when the end of stream came before it began.
                assertThat(c.closedByServer()).as("round %d: closed after the last answer", round).isTrue();
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api/boards/{id}/notes", "/api/kt/boards/{id}/notes"})
    void aWriteSentBeforeAHalfCloseIsAnsweredAndAppliedOnce(String target) throws Exception {
        String board = createBoard();
        String path = target.replace("{id}", board);
        for (int round = 0; round < ROUNDS; round++) {
            try (RawHttp c = new RawHttp(port)) {
                c.send(RawHttp.json("POST", path, "{\"text\":\"half " + round + ".\"}"));
                c.shutdownOutput();
                assertThat(c.read().status()).as("round %d", round).isEqualTo(201);
                assertThat(c.closedByServer()).as("round %d: closed after the answer", round).isTrue();
            }
        }
        try (RawHttp c = new RawHttp(port)) {
            String snapshot = c.exchange(RawHttp.get("/api/boards/" + board)).body();
            for (int round = 0; round < ROUNDS; round++) {
                assertThat(snapshot.split("half " + round + "\\.", -1)).as("note %d, once", round).hasSize(2);
            }
        }
    }

    /** A long poll of a client that ended its side is cancelled after the grace: its waiter leaves the pump. */
    @Test
    void aLongPollOfAClientThatEndedItsSideIsCancelledAndItsWaiterLeaves() throws Exception {
        String board = createBoard();
        try (RawHttp c = new RawHttp(port)) {
            c.send(RawHttp.get("/api/boards/" + board + "/changes?after=0"));
            awaitPump("waiters", 1);
            c.shutdownOutput();
            assertThat(c.closedByServer()).as("closed without an answer").isTrue();
        }
        awaitPump("waiters", 0);
    }

    /**
     * A long poll whose connection is reset (an RST: the client aborted) is cancelled at once, not
     * after the half-close grace: a reset reaches the connection as a read failure and then an end
     * of input, which was taken for a half-close, so the waiter stayed a second for a client that
     * could never read its answer. Seen here by how the connection closed: the grace's DEBUG line
     * ("ended its side ... ms ago") must not be the way.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api/boards/{id}/changes?after=0", "/api/kt/boards/{id}/changes?after=0"})
    void aLongPollWhoseConnectionIsResetIsCancelledAtOnce(String target, CapturedOutput output) throws Exception {
        String board = createBoard();
        RawHttp c = new RawHttp(port);
        c.send(RawHttp.get(target.replace("{id}", board)));
        awaitPump("waiters", 1);
        int from = output.getAll().length();
        c.reset();
        awaitPump("waiters", 0);
        assertThat(output.getAll().substring(from)).as("closed by the grace, not at once").doesNotContain("ended its side");
    }

    /**
     * An event stream to a client that ended its side ends at once, as a whole message: its last
     * chunk, then the close (the client reads on; it used to get the close alone, a message cut
     * short). Its subscription leaves the pump. Both when the end of stream comes while the stream
     * runs, and when it came before the stream's answer began.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/api/boards/{b}/events", "/api/kt/boards/{b}/events", "/api/boards/events", "/api/kt/boards/events"})
    void anEventStreamOfAClientThatEndedItsSideEndsWhole(String target) throws Exception {
        String board = createBoard();
        String request = "GET " + target.replace("{b}", board) + " HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n";
        try (RawHttp c = new RawHttp(port)) {
            c.send(request);
            assertThat(c.readStatusLine()).contains(" 200 ");
            awaitPump("subscribers", 1);
            c.shutdownOutput();
            String rest = c.readToEnd(); // the stream's head and events, until the connection closes
            assertThat(rest).containsIgnoringCase("transfer-encoding: chunked").endsWith("\r\n0\r\n\r\n");
        }
        awaitPump("subscribers", 0);
        try (RawHttp c = new RawHttp(port)) {
            c.send(request);
            c.shutdownOutput();
            String all = c.readToEnd();
            assertThat(all).startsWith("HTTP/1.1 200 ").endsWith("\r\n0\r\n\r\n");
        }
        awaitPump("subscribers", 0);
    }

    /** Waits (30 s at most) until the pump's {@code field} in {@code /api/live} is {@code expected}. */
    private void awaitPump(String field, int expected) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        int seen;
        do {
            try (RawHttp c = new RawHttp(port)) {
                JsonNode live = JSON.readTree(c.exchange(RawHttp.get("/api/live")).body());
                seen = live.path("pump").path(field).asInt(-1);
            }
            if (seen == expected) {
                return;
            }
            Thread.sleep(20);
        } while (System.nanoTime() - deadline < 0);
        assertThat(seen).as("pump " + field).isEqualTo(expected);
    }

    /** A half-close on a kept-alive connection with nothing under way ends it: there is nothing to answer. */
    @Test
    void aHalfCloseBetweenRequestsClosesTheConnection() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.exchange(RawHttp.get("/api/ping")).status()).isEqualTo(200);
            c.shutdownOutput();
            assertThat(c.closedByServer()).isTrue();
        }
    }

    /**
     * A request whose body the half-close cuts short is not applied: it is refused at once with
     * {@code 400} (the body can never complete, so the body deadline need not pass) and the
     * connection closes; the board is unchanged.
     */
    @Test
    void aBodyCutShortByAHalfCloseIsNotApplied() throws Exception {
        String board = createBoard();
        try (RawHttp c = new RawHttp(port)) {
            c.send("POST /api/boards/" + board + "/notes HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 40\r\n\r\n{\"text\":\"cut");
            c.shutdownOutput();
            RawHttp.Response r = c.read();
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.header("content-type")).isEqualTo("application/problem+json");
            assertThat(r.header("connection")).isEqualTo("close");
            assertThat(c.closedByServer()).isTrue();
        }
        try (RawHttp c = new RawHttp(port)) {
            assertThat(c.exchange(RawHttp.get("/api/boards/" + board)).body()).doesNotContain("cut");
        }
    }
}
