package dev.corobridge.demo.web

import dev.corobridge.bridge.HopTrace
import dev.corobridge.bridge.await
import dev.corobridge.demo.BoardService
import dev.corobridge.demo.board.BoardSnapshot
import dev.corobridge.demo.board.BoardStore
import dev.corobridge.demo.board.BoardSummary
import dev.corobridge.demo.board.Change
import dev.corobridge.demo.board.Note
import dev.corobridge.demo.board.WordStats
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.reactive.asFlow
import kotlinx.coroutines.withContext
import org.springframework.http.MediaType
import org.springframework.http.ResponseEntity
import org.springframework.http.codec.ServerSentEvent
import org.springframework.web.bind.annotation.DeleteMapping
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.PutMapping
import org.springframework.web.bind.annotation.RequestAttribute
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController
import tools.jackson.databind.JsonNode
import java.net.URI

/**
 * The Kotlin face of the notes board: the same flows as the Java [BoardController], written as
 * `suspend` functions. A change is `withContext(pump) { prepare }`, then `commit(...).await()`
 * (journal on the ring, apply on the pump), then the answer; Spring runs each handler in a
 * coroutine that a client disconnect cancels.
 */
@RestController
@RequestMapping("/api/kt/boards", produces = [MediaType.APPLICATION_JSON_VALUE])
class KotlinBoardController(private val boards: BoardService) {

    private val pump = boards.pump()

    /** Runs [body] on the pump, the only thread allowed to touch the boards. */
    private suspend fun <T> onPump(trace: HopTrace, step: String, body: (BoardStore) -> T): T =
        withContext(pump.dispatcher) {
            trace.record(pump.name, step)
            body(boards.store())
        }

    @PostMapping(consumes = [MediaType.APPLICATION_JSON_VALUE])
    suspend fun createBoard(
        @RequestBody body: JsonNode,
        @RequestAttribute(HopTraces.ATTRIBUTE) trace: HopTrace,
    ): ResponseEntity<BoardSnapshot> {
        val name = JsonInput.boardName(body)
        val change = onPump(trace, "prepare") { it.prepareCreateBoard(name) }
        val board = boards.commit(change, trace).await().board()
        return ResponseEntity.created(URI.create("/api/kt/boards/${board.id()}")).body(board)
    }

    @GetMapping
    suspend fun listBoards(@RequestAttribute(HopTraces.ATTRIBUTE) trace: HopTrace): List<BoardSummary> =
        onPump(trace, "list") { it.list() }

    /** The board list, live, as on the Java face. */
    @GetMapping("/events", produces = [MediaType.TEXT_EVENT_STREAM_VALUE])
    fun boardListEvents(): Flow<ServerSentEvent<Any>> = boards.boardListEvents().asFlow()

    @GetMapping("/{boardId}")
    suspend fun board(
        @PathVariable boardId: String,
        @RequestAttribute(HopTraces.ATTRIBUTE) trace: HopTrace,
    ): BoardSnapshot {
        val id = JsonInput.boardId(boardId)
        return onPump(trace, "snapshot") { it.snapshot(id) }
    }

    @PostMapping("/{boardId}/notes", consumes = [MediaType.APPLICATION_JSON_VALUE])
    suspend fun addNote(
        @PathVariable boardId: String,
        @RequestBody body: JsonNode,
        @RequestAttribute(HopTraces.ATTRIBUTE) trace: HopTrace,
    ): ResponseEntity<Note> {
        val id = JsonInput.boardId(boardId)
        val text = JsonInput.noteText(body)
        val change = onPump(trace, "prepare") { it.prepareAddNote(id, text) }
        val note = boards.commit(change, trace).await().note()
        return ResponseEntity.created(URI.create("/api/kt/boards/$id/notes/${note.id()}")).body(note)
    }

    @GetMapping("/{boardId}/notes/{noteId}")
    suspend fun note(
        @PathVariable boardId: String,
        @PathVariable noteId: String,
        @RequestAttribute(HopTraces.ATTRIBUTE) trace: HopTrace,
    ): Note {
        val b = JsonInput.boardId(boardId)
        val n = JsonInput.noteId(noteId)
        return onPump(trace, "read") { it.note(b, n) }
    }

    @PutMapping("/{boardId}/notes/{noteId}", consumes = [MediaType.APPLICATION_JSON_VALUE])
    suspend fun editNote(
        @PathVariable boardId: String,
        @PathVariable noteId: String,
        @RequestBody body: JsonNode,
        @RequestAttribute(HopTraces.ATTRIBUTE) trace: HopTrace,
    ): Note {
        val b = JsonInput.boardId(boardId)
        val n = JsonInput.noteId(noteId)
        val edit = JsonInput.edit(body)
        val change = onPump(trace, "prepare") { it.prepareEditNote(b, n, edit.text(), edit.expectedVersion()) }
        return boards.commit(change, trace).await().note()
    }

    @DeleteMapping("/{boardId}/notes/{noteId}")
    suspend fun deleteNote(
        @PathVariable boardId: String,
        @PathVariable noteId: String,
        @RequestParam(required = false) expectedVersion: String?,
        @RequestAttribute(HopTraces.ATTRIBUTE) trace: HopTrace,
    ): ResponseEntity<Void> {
        val b = JsonInput.boardId(boardId)
        val n = JsonInput.noteId(noteId)
        val version = JsonInput.version(expectedVersion, "expectedVersion", Change.ANY_VERSION)
        val change = onPump(trace, "prepare") { it.prepareDeleteNote(b, n, version) }
        boards.commit(change, trace).await()
        return ResponseEntity.noContent().build()
    }

    @GetMapping("/{boardId}/events", produces = [MediaType.TEXT_EVENT_STREAM_VALUE])
    fun events(@PathVariable boardId: String): Flow<ServerSentEvent<Any>> =
        boards.events(JsonInput.boardId(boardId)).asFlow()

    @GetMapping("/{boardId}/stats")
    suspend fun stats(
        @PathVariable boardId: String,
        @RequestAttribute(HopTraces.ATTRIBUTE) trace: HopTrace,
    ): WordStats {
        val id = JsonInput.boardId(boardId)
        val snapshot = onPump(trace, "snapshot") { it.snapshot(id) }
        val stats = withContext(boards.cpu()) {
            trace.record("cpu", "count words")
            WordStats.of(snapshot)
        }
        return onPump(trace, "check revision") { if (it.revision(id) == stats.revision()) stats else stats.stale() }
    }

    /**
     * Long poll: the board once its revision is above `after`; 409 if the board has not reached
     * `after` (the client's revision cannot be this board's), as on the Java face.
     */
    @GetMapping("/{boardId}/changes")
    suspend fun changes(
        @PathVariable boardId: String,
        @RequestParam(required = false) after: String?,
        @RequestAttribute(HopTraces.ATTRIBUTE) trace: HopTrace,
    ): BoardSnapshot {
        val id = JsonInput.boardId(boardId)
        val revision = JsonInput.version(after, "after", 0)
        val waiter = onPump(trace, "wait") { it.awaitRevision(id, revision, boards.longPollTimeout()) }
        try {
            return waiter.await()
        } catch (e: CancellationException) {
            waiter.cancel() // client gone: withdraw the waiter now, not at the next change
            throw e
        }
    }
}
