package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

/**
 * Every operation of the service answers with these exact bytes and these exact {@code Hop-Trace}
 * steps, on both faces: a board's life from its creation to a note's deletion, the refusals that
 * come back from the pump, and the live metrics' one pump hop. FacesAnswerAlikeTest pins that the
 * faces answer alike; this test pins what they both answer, so that moving the flows behind one
 * service boundary cannot change both faces the same way unnoticed. Ids are written {@code b#} and
 * {@code n#}, the journal's ring {@code corobridge-ring-#}; a step is {@code context:note} (threads
 * left out).
 */
class PinnedAnswersTest extends LiveServiceTestBase {

    private static final String CHANGE = "http:request > corobridge-pump:prepare > corobridge-ring-#:journal"
            + " > corobridge-pump:apply";

    @Test
    void everyOperationAnswersAsPinnedOnBothFaces() throws IOException {
        for (String face : FACES) {
            List<String> answers = new ArrayList<>();
            RawHttp.Response created = exchange(json("POST", face + "/boards", "{\"name\":\"pinned\"}"));
            answers.add(answer(face, created));
            String b = JSON.readTree(created.body()).path("id").asString();
            String board = face + "/boards/" + b;
            RawHttp.Response added = exchange(json("POST", board + "/notes", "{\"text\":\"the cat and the hat\"}"));
            answers.add(answer(face, added));
            String n = JSON.readTree(added.body()).path("id").asString();
            String note = board + "/notes/" + n;
            answers.add(answer(face, exchange(get(board))));
            answers.add(answer(face, exchange(get(note))));
            answers.add(answer(face, exchange(json("PUT", note, "{\"text\":\"The end\",\"expectedVersion\":1}"))));
            answers.add(answer(face, exchange(get(board + "/stats"))));
            answers.add(answer(face, exchange(get(board + "/changes?after=1"))));
            // refusals decided on the pump
            answers.add(answer(face, exchange(json("PUT", note, "{\"text\":\"x\",\"expectedVersion\":1}"))));
            answers.add(answer(face, exchange(request("DELETE", note + "?expectedVersion=2", List.of(), null))));
            answers.add(answer(face, exchange(json("POST", face + "/boards/b999999/notes", "{\"text\":\"x\"}"))));
            answers.add(answer(face, exchange(request("DELETE", note, List.of(), null))));
            answers.add(answer(face, exchange(get(face + "/boards/b999999"))));
            answers.add(answer(face, exchange(get(board + "/notes/n999999"))));
            answers.add(answer(face, exchange(get(board + "/changes?after=9"))));
            answers.add(answer(face, exchange(get(face + "/boards/b999999/stats"))));
            // the list: its steps (its body holds the other tests' boards)
            answers.add(steps(exchange(get(face + "/boards"))));
            assertThat(answers).as(face).containsExactly(
                    "201 " + CHANGE + " {\"id\":\"b#\",\"name\":\"pinned\",\"revision\":0,\"notes\":[]}",
                    "201 " + CHANGE + " {\"id\":\"n#\",\"boardId\":\"b#\",\"text\":\"the cat and the hat\",\"version\":1}",
                    "200 http:request > corobridge-pump:snapshot {\"id\":\"b#\",\"name\":\"pinned\",\"revision\":1,"
                            + "\"notes\":[{\"id\":\"n#\",\"boardId\":\"b#\",\"text\":\"the cat and the hat\",\"version\":1}]}",
                    "200 http:request > corobridge-pump:read {\"id\":\"n#\",\"boardId\":\"b#\",\"text\":\"the cat and the hat\","
                            + "\"version\":1}",
                    "200 " + CHANGE + " {\"id\":\"n#\",\"boardId\":\"b#\",\"text\":\"The end\",\"version\":2}",
                    "200 http:request > corobridge-pump:snapshot > cpu:count words > corobridge-pump:check revision "
                            + "{\"boardId\":\"b#\",\"revision\":2,\"current\":true,\"notes\":1,\"words\":2,"
                            + "\"topWords\":[{\"word\":\"end\",\"count\":1},{\"word\":\"the\",\"count\":1}]}",
                    "200 http:request > corobridge-pump:wait {\"id\":\"b#\",\"name\":\"pinned\",\"revision\":2,"
                            + "\"notes\":[{\"id\":\"n#\",\"boardId\":\"b#\",\"text\":\"The end\",\"version\":2}]}",
                    "409 http:request > corobridge-pump:prepare " + problem(409, "conflict", "Conflict",
                            "note 'n#' is at version 2, not 1", "/api/boards/b#/notes/n#"),
                    "204 " + CHANGE + " ",
                    "404 http:request > corobridge-pump:prepare " + problem(404, "not-found", "Not Found",
                            "no board 'b#'", "/api/boards/b#/notes"),
                    "404 http:request > corobridge-pump:prepare " + problem(404, "not-found", "Not Found",
                            "no note 'n#' on board 'b#'", "/api/boards/b#/notes/n#"),
                    "404 http:request > corobridge-pump:snapshot " + problem(404, "not-found", "Not Found",
                            "no board 'b#'", "/api/boards/b#"),
                    "404 http:request > corobridge-pump:read " + problem(404, "not-found", "Not Found",
                            "no note 'n#' on board 'b#'", "/api/boards/b#/notes/n#"),
                    "409 http:request > corobridge-pump:wait " + problem(409, "conflict", "Conflict",
                            "board 'b#' is at revision 3; 'after' (9) is ahead of it, so it cannot come from this board: "
                                    + "fetch the board and poll from its revision", "/api/boards/b#/changes"),
                    "404 http:request > corobridge-pump:snapshot " + problem(404, "not-found", "Not Found",
                            "no board 'b#'", "/api/boards/b#/stats"),
                    "200 http:request > corobridge-pump:list");
        }
        // The live metrics: one pump hop, not recorded in the trace; their names, in order.
        RawHttp.Response live = exchange(get("/api/live"));
        assertThat(steps(live)).isEqualTo("200 http:request");
        assertThat(names(JSON.readTree(live.body()))).isEqualTo("{transport,fallbackReason,pump{name,queueDepth,"
                + "dispatches,wakeups,wakeupsPerDispatch,queueLatencyP99Micros,subscribers,waiters},ring{rings,inFlight,"
                + "operations,errors},journal{changes,total,fsyncs,fsyncsPerChange,largestBatch,bytes,applied,rejected,broken}}");
    }

    /** The names of an object's fields, nested objects' in braces. */
    private static String names(tools.jackson.databind.JsonNode node) {
        return node.properties().stream()
                .map(e -> e.getKey() + (e.getValue().isObject() ? names(e.getValue()) : ""))
                .collect(Collectors.joining(",", "{", "}"));
    }

    private static byte[] get(String path) {
        return request("GET", path, List.of(), null);
    }

    /** A problem JSON body as the service writes it, ids and the face's prefix written as placeholders. */
    private static String problem(int status, String type, String title, String detail, String instance) {
        return "{\"type\":\"/problems/" + type + "\",\"title\":\"" + title + "\",\"status\":" + status + ",\"detail\":\"" + detail
                + "\",\"instance\":\"" + normalise(instance) + "\"}";
    }

    /** Status, steps and body, with the face's prefix written {@code /api} and ids as placeholders. */
    private static String answer(String face, RawHttp.Response r) {
        String body = face.equals("/api") ? r.body() : r.body().replace("\"" + face + "/", "\"/api/");
        return steps(r) + " " + normalise(body);
    }

    private static String steps(RawHttp.Response r) {
        String trace = r.header(HopTraces.HEADER);
        String steps = trace == null ? "(none)" : List.of(trace.split(" > ")).stream()
                .map(step -> step.replaceAll("@[^:]*", "").replaceAll("^corobridge-ring-[0-9]+", "corobridge-ring-#"))
                .collect(Collectors.joining(" > "));
        return r.status() + " " + steps;
    }

    private static String normalise(String s) {
        return s.replaceAll("\\b([bn])[0-9]+\\b", "$1#");
    }
}
