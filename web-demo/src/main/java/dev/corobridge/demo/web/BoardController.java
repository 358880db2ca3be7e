package dev.corobridge.demo.web;

import java.net.URI;
import java.util.List;
import java.util.concurrent.Executor;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestAttribute;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import tools.jackson.databind.JsonNode;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Task;
import dev.corobridge.demo.BoardService;
import dev.corobridge.demo.board.BoardSnapshot;
import dev.corobridge.demo.board.BoardStore;
import dev.corobridge.demo.board.BoardSummary;
import dev.corobridge.demo.board.Change;
import dev.corobridge.demo.board.Note;
import dev.corobridge.demo.board.WordStats;

/**
 * The Java face of the notes board: every handler returns a {@link Task}, which the starter
 * adapts for WebFlux (a client that disconnects cancels the task). Each change is three steps:
 * prepare on the pump (validate, assign ids), commit (journal on the ring, then apply on the
 * pump), answer. The Kotlin face ({@code KotlinBoardRoutes}) writes the same flows as
 * {@code suspend} functions behind {@code coRouter} routes.
 */
@RestController
@RequestMapping(path = "/api/boards", produces = MediaType.APPLICATION_JSON_VALUE)
public class BoardController {

    /** Runs a final mapping on the thread that completed the step before (no extra hop). */
    private static final Executor SAME_THREAD = Runnable::run;

    private final BoardService boards;

    public BoardController(BoardService boards) {
        this.boards = boards;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    public Task<ResponseEntity<BoardSnapshot>> createBoard(@RequestBody JsonNode body,
                                                           @RequestAttribute(HopTraces.ATTRIBUTE) HopTrace trace) {
        String name = JsonInput.boardName(body);
        return boards.onPump(trace, "prepare", s -> s.prepareCreateBoard(name))
                .thenComposeOn(SAME_THREAD, change -> boards.commit(change, trace))
                .thenOn(SAME_THREAD, applied -> ResponseEntity
                        .created(URI.create("/api/boards/" + applied.board().id())).body(applied.board()));
    }

    @GetMapping
    public Task<List<BoardSummary>> listBoards(@RequestAttribute(HopTraces.ATTRIBUTE) HopTrace trace) {
        return boards.onPump(trace, "list", BoardStore::list);
    }

    /**
     * The board list, live: a {@code boards} event with the list, then a {@code board} event with a
     * board's line whenever a board is created or changes.
     */
    @GetMapping(path = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public Flux<ServerSentEvent<Object>> boardListEvents() {
        return boards.boardListEvents();
    }

    @GetMapping("/{boardId}")
    public Task<BoardSnapshot> board(@PathVariable String boardId, @RequestAttribute(HopTraces.ATTRIBUTE) HopTrace trace) {
        String id = JsonInput.boardId(boardId);
        return boards.onPump(trace, "snapshot", s -> s.snapshot(id));
    }

    @PostMapping(path = "/{boardId}/notes", consumes = MediaType.APPLICATION_JSON_VALUE)
    public Task<ResponseEntity<Note>> addNote(@PathVariable String boardId, @RequestBody JsonNode body,
                                              @RequestAttribute(HopTraces.ATTRIBUTE) HopTrace trace) {
        String id = JsonInput.boardId(boardId);
        String text = JsonInput.noteText(body);
        return boards.onPump(trace, "prepare", s -> s.prepareAddNote(id, text))
                .thenComposeOn(SAME_THREAD, change -> boards.commit(change, trace))
                .thenOn(SAME_THREAD, applied -> ResponseEntity
                        .created(URI.create("/api/boards/" + id + "/notes/" + applied.note().id())).body(applied.note()));
    }

    @GetMapping("/{boardId}/notes/{noteId}")
    public Task<Note> note(@PathVariable String boardId, @PathVariable String noteId,
                           @RequestAttribute(HopTraces.ATTRIBUTE) HopTrace trace) {
        String b = JsonInput.boardId(boardId);
        String n = JsonInput.noteId(noteId);
        return boards.onPump(trace, "read", s -> s.note(b, n));
    }

    @PutMapping(path = "/{boardId}/notes/{noteId}", consumes = MediaType.APPLICATION_JSON_VALUE)
    public Task<Note> editNote(@PathVariable String boardId, @PathVariable String noteId, @RequestBody JsonNode body,
                               @RequestAttribute(HopTraces.ATTRIBUTE) HopTrace trace) {
        String b = JsonInput.boardId(boardId);
        String n = JsonInput.noteId(noteId);
        JsonInput.Edit edit = JsonInput.edit(body);
        return boards.onPump(trace, "prepare", s -> s.prepareEditNote(b, n, edit.text(), edit.expectedVersion()))
                .thenComposeOn(SAME_THREAD, change -> boards.commit(change, trace))
                .thenOn(SAME_THREAD, applied -> applied.note());
    }

    @DeleteMapping("/{boardId}/notes/{noteId}")
    public Task<ResponseEntity<Void>> deleteNote(@PathVariable String boardId, @PathVariable String noteId,
                                                 @RequestParam(required = false) String expectedVersion,
                                                 @RequestAttribute(HopTraces.ATTRIBUTE) HopTrace trace) {
        String b = JsonInput.boardId(boardId);
        String n = JsonInput.noteId(noteId);
        long version = JsonInput.version(expectedVersion, "expectedVersion", Change.ANY_VERSION);
        return boards.onPump(trace, "prepare", s -> s.prepareDeleteNote(b, n, version))
                .thenComposeOn(SAME_THREAD, change -> boards.commit(change, trace))
                .thenOn(SAME_THREAD, applied -> ResponseEntity.noContent().<Void>build());
    }

    @GetMapping(path = "/{boardId}/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public Flux<ServerSentEvent<Object>> events(@PathVariable String boardId) {
        return boards.events(JsonInput.boardId(boardId));
    }

    @GetMapping("/{boardId}/stats")
    public Task<WordStats> stats(@PathVariable String boardId, @RequestAttribute(HopTraces.ATTRIBUTE) HopTrace trace) {
        return boards.stats(JsonInput.boardId(boardId), trace);
    }

    /**
     * Long poll: the board once its revision is above {@code after}; 409 if the board has not
     * reached {@code after} (the client's revision cannot be this board's).
     */
    @GetMapping("/{boardId}/changes")
    public Task<BoardSnapshot> changes(@PathVariable String boardId, @RequestParam(required = false) String after,
                                       @RequestAttribute(HopTraces.ATTRIBUTE) HopTrace trace) {
        String id = JsonInput.boardId(boardId);
        long revision = JsonInput.version(after, "after", 0);
        return boards.awaitChange(id, revision, trace);
    }
}
