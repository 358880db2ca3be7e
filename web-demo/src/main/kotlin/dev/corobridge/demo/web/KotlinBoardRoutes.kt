package dev.corobridge.demo.web

import dev.corobridge.bridge.HopTrace
import dev.corobridge.demo.BoardService
import dev.corobridge.demo.addNote
import dev.corobridge.demo.awaitChange
import dev.corobridge.demo.board
import dev.corobridge.demo.board.Change
import dev.corobridge.demo.createBoard
import dev.corobridge.demo.deleteNote
import dev.corobridge.demo.editNote
import dev.corobridge.demo.list
import dev.corobridge.demo.note
import dev.corobridge.demo.stats
import dev.corobridge.demo.web.PathEndpoints.Endpoint
import dev.corobridge.reactor.withSubscriberContext
import kotlinx.coroutines.reactor.awaitSingle
import org.springframework.context.annotation.Bean
import org.springframework.context.annotation.Configuration
import org.springframework.http.HttpMethod
import org.springframework.http.MediaType
import org.springframework.web.reactive.function.server.RouterFunction
import org.springframework.web.reactive.function.server.ServerRequest
import org.springframework.web.reactive.function.server.ServerResponse
import org.springframework.web.reactive.function.server.awaitBodyOrNull
import org.springframework.web.reactive.function.server.buildAndAwait
import org.springframework.web.reactive.function.server.coRouter
import org.springframework.web.server.ServerWebInputException
import reactor.core.Fuseable
import reactor.core.publisher.Mono
import tools.jackson.databind.JsonNode

/** What answers a request on this face. */
private typealias Handler = suspend (ServerRequest) -> ServerResponse

/**
 * The response a Spring builder made. Its `build()` answers `Mono.just(response)`, a Reactor
 * `ScalarCallable` whose value is there without a subscription, so it is taken at once; any other
 * `Mono` is awaited. The Java face's `flatMap` takes such a value the same way.
 */
private suspend fun Mono<ServerResponse>.response(): ServerResponse =
    (this as? Fuseable.ScalarCallable<*>)?.call() as ServerResponse? ?: awaitSingle()

/**
 * The Kotlin face of the notes board, `/api/kt/boards/...`: the same flows as the Java
 * [JavaBoardRoutes], written as `suspend` functions behind functional `coRouter {}` routes. Each
 * handler reads the request, makes one call to the service boundary ([BoardService], through its
 * suspending face: `boards.addNote(id, text, trace)`) and answers; it runs in a coroutine that a
 * client disconnect cancels, which cancels the boundary's task.
 *
 * Why functional routes rather than annotated `suspend` methods: Spring invokes an annotated
 * suspend method through kotlin-reflect on every request, which cost 35 to 40 % of this face's CPU
 * under load; a `coRouter` lambda is called directly (benchmarks/HISTORY.md, "Web demo under load:
 * where the hop's cost went, and what changed (2026-12-01)").
 * What annotations gave for free, method, `Content-Type` and `Accept` matching with Spring's 405,
 * 415 and 406 answers and OPTIONS, [PathEndpoints] (shared with the Java face) does the same way,
 * and errors reach the same `WebExceptionHandler` ([ProblemJsonHandler]) as the Java face's: the
 * two faces answer alike, and as the annotated controllers did (FacesAnswerAlikeTest).
 *
 * The handler code runs off the pump: the starter's `corobridge.webflux.suspend-dispatcher=off-pump`
 * puts its dispatcher in the coroutine context `coRouter` starts handlers in, so a handler that
 * resumes from a task completed on the pump goes on on the request's event loop.
 */
@Configuration(proxyBeanMethods = false)
class KotlinBoardRoutes {

    @Bean
    fun kotlinBoardRouter(boards: BoardService): RouterFunction<ServerResponse> {
        val face = Face(boards)
        val json = MediaType.APPLICATION_JSON
        val sse = MediaType.TEXT_EVENT_STREAM
        val boardsPath = PathEndpoints.of(
            endpoint(HttpMethod.GET, null, json, face::listBoards),
            endpoint(HttpMethod.POST, json, json, face::createBoard))
        // "/events" is the board list's stream; as with annotated handlers, a client that does not take
        // an event stream reaches "/{boardId}" with the id "events" instead.
        val listEvents = PathEndpoints.of(
            endpoint(HttpMethod.GET, null, sse, face::boardListEvents),
            endpoint(HttpMethod.GET, null, json) { face.board(it, "events") })
        val board = PathEndpoints.of(endpoint(HttpMethod.GET, null, json, face::board))
        val notes = PathEndpoints.of(endpoint(HttpMethod.POST, json, json, face::addNote))
        val note = PathEndpoints.of(
            endpoint(HttpMethod.GET, null, json, face::note),
            endpoint(HttpMethod.PUT, json, json, face::editNote),
            endpoint(HttpMethod.DELETE, null, json, face::deleteNote))
        val events = PathEndpoints.of(endpoint(HttpMethod.GET, null, sse, face::events))
        val stats = PathEndpoints.of(endpoint(HttpMethod.GET, null, json, face::stats))
        val changes = PathEndpoints.of(endpoint(HttpMethod.GET, null, json, face::changes))
        return coRouter {
            "/api/kt/boards" { boardsPath.answer(it) }
            "/api/kt/boards/events" { listEvents.answer(it) }
            "/api/kt/boards/{boardId}" { board.answer(it) }
            "/api/kt/boards/{boardId}/notes" { notes.answer(it) }
            "/api/kt/boards/{boardId}/notes/{noteId}" { note.answer(it) }
            "/api/kt/boards/{boardId}/events" { events.answer(it) }
            "/api/kt/boards/{boardId}/stats" { stats.answer(it) }
            "/api/kt/boards/{boardId}/changes" { changes.answer(it) }
        }
    }

    /** An endpoint of a path whose handler is a `suspend` function. */
    private fun endpoint(method: HttpMethod, consumes: MediaType?, produces: MediaType, handler: Handler) =
        Endpoint(method, consumes, produces, handler)

    /** Answers [request] with the handler [PathEndpoints] chooses, or the path's own OPTIONS answer. */
    private suspend fun PathEndpoints<Handler>.answer(request: ServerRequest): ServerResponse {
        // The request's MDC and trace, taken from its Reactor context (Reactor's default, limited,
        // propagation does not set them on the thread), are the handler's at every resume and travel
        // with every hop it makes, as a Java Task's do.
        return withSubscriberContext {
            RequestLog.received(request)
            val handler = choose(request) ?: return@withSubscriberContext options().response()
            handler(request)
        }
    }

    /** The handlers: one per endpoint, each the same steps as its Java twin. Thread-safe (stateless). */
    private class Face(private val boards: BoardService) {

        private fun trace(request: ServerRequest): HopTrace = HopTraces.of(request.exchange())

        private fun boardId(request: ServerRequest): String = JsonInput.boardId(request.pathVariable("boardId"))

        private fun noteId(request: ServerRequest): String = JsonInput.noteId(request.pathVariable("noteId"))

        /** A query parameter as `@RequestParam String` reads it: its values joined by commas, `null` if absent. */
        /** The JSON body, required as `@RequestBody` requires it. */
        private suspend fun body(request: ServerRequest): JsonNode =
            request.awaitBodyOrNull<JsonNode>() ?: throw ServerWebInputException("No request body")

        private suspend fun json(value: Any): ServerResponse = JsonAnswers.ok(value).response()

        private suspend fun created(location: String, value: Any): ServerResponse =
            JsonAnswers.created(location, value).response()

        suspend fun createBoard(request: ServerRequest): ServerResponse {
            val trace = trace(request)
            val board = boards.createBoard(JsonInput.boardName(body(request)), trace)
            return created("/api/kt/boards/${board.id()}", board)
        }

        suspend fun listBoards(request: ServerRequest): ServerResponse = json(boards.list(trace(request)))

        /** The board list, live, as on the Java face. */
        suspend fun boardListEvents(request: ServerRequest): ServerResponse =
            EventStreamAnswers.ok(request, boards.boardListEvents()).awaitSingle()

        suspend fun board(request: ServerRequest): ServerResponse = board(request, request.pathVariable("boardId"))

        suspend fun board(request: ServerRequest, boardId: String): ServerResponse =
            json(boards.board(JsonInput.boardId(boardId), trace(request)))

        suspend fun addNote(request: ServerRequest): ServerResponse {
            val body = body(request) // read first, as Spring resolves a @RequestBody before the handler runs
            val id = boardId(request)
            val note = boards.addNote(id, JsonInput.noteText(body), trace(request))
            return created("/api/kt/boards/$id/notes/${note.id()}", note)
        }

        suspend fun note(request: ServerRequest): ServerResponse =
            json(boards.note(boardId(request), noteId(request), trace(request)))

        suspend fun editNote(request: ServerRequest): ServerResponse {
            val body = body(request)
            val b = boardId(request)
            val n = noteId(request)
            val edit = JsonInput.edit(body)
            return json(boards.editNote(b, n, edit.text(), edit.expectedVersion(), trace(request)))
        }

        suspend fun deleteNote(request: ServerRequest): ServerResponse {
            val b = boardId(request)
            val n = noteId(request)
            JsonInput.noBody(request.headers().asHttpHeaders(), JsonInput.DELETE_CHECK)
            val version = JsonInput.version(JsonInput.onlyQueryParameter(request.queryParams(), "expectedVersion"),
                "expectedVersion", 1, Change.ANY_VERSION)
            boards.deleteNote(b, n, version, trace(request))
            return ServerResponse.noContent().buildAndAwait()
        }

        suspend fun events(request: ServerRequest): ServerResponse {
            val id = boardId(request)
            return EventStreamAnswers.ok(request, boards.events(id)).awaitSingle()
        }

        suspend fun stats(request: ServerRequest): ServerResponse = json(boards.stats(boardId(request), trace(request)))

        /**
         * Long poll: the board once its revision is above `after`; 409 if the board has not reached
         * `after` (the client's revision cannot be this board's), as on the Java face. A client that
         * goes away cancels the wait, which withdraws the waiter at once.
         */
        suspend fun changes(request: ServerRequest): ServerResponse {
            val id = boardId(request)
            val revision = JsonInput.version(JsonInput.onlyQueryParameter(request.queryParams(), "after"), "after", 0, 0)
            return json(boards.awaitChange(id, revision, trace(request)))
        }
    }
}
