package dev.corobridge.demo.web;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebInputException;
import reactor.core.publisher.Mono;
import tools.jackson.databind.JsonNode;

import dev.corobridge.bridge.HopTrace;
import dev.corobridge.bridge.Task;
import dev.corobridge.demo.BoardService;
import dev.corobridge.demo.board.Change;
import dev.corobridge.reactor.ReactorContexts;
import dev.corobridge.spring.TaskReactiveAdapters;

/**
 * The Java face of the notes board, {@code /api/boards/...}: functional routes
 * ({@link RouterFunction}) whose handlers read the request, make one call to the service boundary
 * ({@link BoardService}, which returns a {@link Task}) and answer with its value. The Kotlin face
 * ({@code KotlinBoardRoutes}) does the same with {@code suspend} functions behind {@code coRouter {}}
 * routes.
 *
 * <p><b>Why functional routes rather than an annotated {@code @RestController}.</b> Under load the
 * annotated handler path (resolving each argument, the reflective call of the method, adapting the
 * returned {@code Task}) cost the Java face's one-hop snapshot about 15 µs of service CPU per request
 * more than the same hop behind the Kotlin face's functional routes (benchmarks/HISTORY.md,
 * "Web demo under load: where the hop's cost went, and what changed (2026-12-01)"); a
 * {@link HandlerFunction} is called directly. What annotations gave for free, method,
 * {@code Content-Type} and {@code Accept} matching with Spring's 405, 415 and 406 answers
 * and OPTIONS, {@link PathEndpoints} (shared with the Kotlin face) does the same way, and errors
 * reach the service's {@code WebExceptionHandler} ({@link ProblemJsonHandler}): both faces answer
 * alike, and as the annotated controller did (FacesAnswerAlikeTest).
 *
 * <p><b>Where the answer is made.</b> A handler's {@code Task} becomes a {@code Mono} through the
 * starter's {@code Task} adapter ({@link TaskReactiveAdapters#defer}: the task is started when
 * WebFlux subscribes, with the request's MDC and trace taken from its Reactor context, since the
 * service runs with Reactor's default, limited, context propagation; then as for a handler that
 * returns a {@code Task}): it hands the task's outcome to the request's Netty event
 * loop (the starter's {@code corobridge.webflux.answer-on-event-loop}), so the pump only computes the
 * value and the response is built, encoded and written on the connection's loop, as for the Kotlin
 * face. A client that disconnects cancels the {@code Mono}, which cancels the task.
 *
 * <p>Thread-safety: the routes and handlers are immutable; every handler may run on any thread.
 */
@Configuration(proxyBeanMethods = false)
public class JavaBoardRoutes {

    /** The Java face's routes. */
    @Bean
    RouterFunction<ServerResponse> javaBoardRouter(BoardService boards) {
        Face face = new Face(boards);
        MediaType json = MediaType.APPLICATION_JSON;
        MediaType sse = MediaType.TEXT_EVENT_STREAM;
        PathEndpoints<HandlerFunction<ServerResponse>> boardsPath = PathEndpoints.of(
                endpoint(HttpMethod.GET, null, json, face::listBoards),
                endpoint(HttpMethod.POST, json, json, face::createBoard));
        // "/events" is the board list's stream; as with annotated handlers, a client that does not take
        // an event stream reaches "/{boardId}" with the id "events" instead.
        PathEndpoints<HandlerFunction<ServerResponse>> listEvents = PathEndpoints.of(
                endpoint(HttpMethod.GET, null, sse, face::boardListEvents),
                endpoint(HttpMethod.GET, null, json, request -> face.board(request, "events")));
        PathEndpoints<HandlerFunction<ServerResponse>> board = PathEndpoints.of(
                endpoint(HttpMethod.GET, null, json, face::board));
        PathEndpoints<HandlerFunction<ServerResponse>> notes = PathEndpoints.of(
                endpoint(HttpMethod.POST, json, json, face::addNote));
        PathEndpoints<HandlerFunction<ServerResponse>> note = PathEndpoints.of(
                endpoint(HttpMethod.GET, null, json, face::note),
                endpoint(HttpMethod.PUT, json, json, face::editNote),
                endpoint(HttpMethod.DELETE, null, json, face::deleteNote));
        PathEndpoints<HandlerFunction<ServerResponse>> events = PathEndpoints.of(
                endpoint(HttpMethod.GET, null, sse, face::events));
        PathEndpoints<HandlerFunction<ServerResponse>> stats = PathEndpoints.of(
                endpoint(HttpMethod.GET, null, json, face::stats));
        PathEndpoints<HandlerFunction<ServerResponse>> changes = PathEndpoints.of(
                endpoint(HttpMethod.GET, null, json, face::changes));
        return RouterFunctions.route()
                .route(RequestPredicates.path("/api/boards"), answer("/api/boards", boardsPath))
                .route(RequestPredicates.path("/api/boards/events"), answer("/api/boards/events", listEvents))
                .route(RequestPredicates.path("/api/boards/{boardId}"), answer("/api/boards/{boardId}", board))
                .route(RequestPredicates.path("/api/boards/{boardId}/notes"), answer("/api/boards/{boardId}/notes", notes))
                .route(RequestPredicates.path("/api/boards/{boardId}/notes/{noteId}"), answer("/api/boards/{boardId}/notes/{noteId}", note))
                .route(RequestPredicates.path("/api/boards/{boardId}/events"), answer("/api/boards/{boardId}/events", events))
                .route(RequestPredicates.path("/api/boards/{boardId}/stats"), answer("/api/boards/{boardId}/stats", stats))
                .route(RequestPredicates.path("/api/boards/{boardId}/changes"), answer("/api/boards/{boardId}/changes", changes))
                .build();
    }

    private static PathEndpoints.Endpoint<HandlerFunction<ServerResponse>> endpoint(
            HttpMethod method, @Nullable MediaType consumes, MediaType produces, HandlerFunction<ServerResponse> handler) {
        return new PathEndpoints.Endpoint<>(method, consumes, produces, handler);
    }

    /**
     * A path's handler: the endpoint {@link PathEndpoints} chooses answers, or the path's own OPTIONS
     * answer. A refusal or a handler's validation error becomes the {@code Mono}'s error, as a
     * thrown exception of an annotated handler does.
     */
    private static HandlerFunction<ServerResponse> answer(String pattern, PathEndpoints<HandlerFunction<ServerResponse>> path) {
        return new PathHandler("Java face " + pattern, path);
    }

    /**
     * The handler of one path, named by it. WebFlux's {@code DispatcherHandler} describes the handler
     * of every request it answers by the handler's {@code toString()}, so it is made once here; a
     * lambda's would build a class name and an identity hash per request. Immutable; thread-safe.
     */
    private record PathHandler(String description, PathEndpoints<HandlerFunction<ServerResponse>> path)
            implements HandlerFunction<ServerResponse> {

        @Override
        public Mono<ServerResponse> handle(ServerRequest request) {
            if (!RequestLog.enabled()) {
                return dispatch(path, request);
            }
            // The line carries the request's trace: its Reactor context as the thread's for the call.
            return Mono.deferContextual(context -> ReactorContexts.with(context, () -> {
                RequestLog.received(request);
                return dispatch(path, request);
            }));
        }

        @Override
        public String toString() {
            return description;
        }
    }

    private static Mono<ServerResponse> dispatch(PathEndpoints<HandlerFunction<ServerResponse>> path, ServerRequest request) {
        try {
            HandlerFunction<ServerResponse> handler = path.choose(request);
            return handler == null ? path.options() : handler.handle(request);
        } catch (RuntimeException e) {
            return Mono.error(e);
        }
    }

    /** The handlers: one per endpoint, each the same steps as its Kotlin twin. Thread-safe (immutable). */
    private static final class Face {

        private final BoardService boards;

        Face(BoardService boards) {
            this.boards = boards;
        }

        /**
         * The outcome of the task {@code start} starts when the answer is subscribed, delivered where the
         * starter's adapter delivers it (the request's event loop). The task is started with the
         * request's Reactor context as the thread's (its MDC and trace), so it carries them to the pump
         * and the ring: Reactor restores them by itself only in a few operators.
         */
        private static <T> Mono<T> outcome(Supplier<Task<T>> start) {
            return TaskReactiveAdapters.defer(start);
        }

        private static <T> Mono<ServerResponse> json(Supplier<Task<T>> start) {
            return outcome(start).flatMap(JsonAnswers::ok);
        }

        private static HopTrace trace(ServerRequest request) {
            return HopTraces.of(request.exchange());
        }

        private static String boardId(ServerRequest request) {
            return JsonInput.boardId(request.pathVariable("boardId"));
        }

        private static String noteId(ServerRequest request) {
            return JsonInput.noteId(request.pathVariable("noteId"));
        }

        /** A query parameter as {@code @RequestParam String} reads it: its values joined by commas, {@code null} if absent. */
        /** The JSON body, required as {@code @RequestBody} requires it. */
        private static Mono<JsonNode> body(ServerRequest request) {
            return request.bodyToMono(JsonNode.class)
                    .switchIfEmpty(Mono.error(() -> new ServerWebInputException("No request body")));
        }

        Mono<ServerResponse> createBoard(ServerRequest request) {
            HopTrace trace = trace(request);
            return body(request).flatMap(body -> outcome(() -> boards.createBoardAsync(JsonInput.boardName(body), trace))
                    .flatMap(board -> JsonAnswers.created("/api/boards/" + board.id(), board)));
        }

        Mono<ServerResponse> listBoards(ServerRequest request) {
            HopTrace trace = trace(request);
            return json(() -> boards.listAsync(trace));
        }

        /**
         * The board list, live: a {@code boards} event with the list, then a {@code board} event with a
         * board's line whenever a board is created or changes.
         */
        Mono<ServerResponse> boardListEvents(ServerRequest request) {
            return EventStreamAnswers.ok(request, boards.boardListEvents());
        }

        Mono<ServerResponse> board(ServerRequest request) {
            return board(request, request.pathVariable("boardId"));
        }

        /** The one-hop read: a snapshot made on the pump, answered on the request's event loop. */
        Mono<ServerResponse> board(ServerRequest request, String boardId) {
            String id = JsonInput.boardId(boardId);
            HopTrace trace = trace(request);
            return json(() -> boards.boardAsync(id, trace));
        }

        Mono<ServerResponse> addNote(ServerRequest request) {
            // The body first, as Spring resolves a @RequestBody before the handler runs.
            return body(request).flatMap(body -> {
                String id = boardId(request);
                String text = JsonInput.noteText(body);
                HopTrace trace = trace(request);
                return outcome(() -> boards.addNoteAsync(id, text, trace))
                        .flatMap(note -> JsonAnswers.created("/api/boards/" + id + "/notes/" + note.id(), note));
            });
        }

        Mono<ServerResponse> note(ServerRequest request) {
            String b = boardId(request);
            String n = noteId(request);
            HopTrace trace = trace(request);
            return json(() -> boards.noteAsync(b, n, trace));
        }

        Mono<ServerResponse> editNote(ServerRequest request) {
            return body(request).flatMap(body -> {
                String b = boardId(request);
                String n = noteId(request);
                JsonInput.Edit edit = JsonInput.edit(body);
                HopTrace trace = trace(request);
                return json(() -> boards.editNoteAsync(b, n, edit.text(), edit.expectedVersion(), trace));
            });
        }

        Mono<ServerResponse> deleteNote(ServerRequest request) {
            String b = boardId(request);
            String n = noteId(request);
            JsonInput.noBody(request.headers().asHttpHeaders(), JsonInput.DELETE_CHECK);
            long version = JsonInput.version(JsonInput.onlyQueryParameter(request.queryParams(), "expectedVersion"),
                    "expectedVersion", 1, Change.ANY_VERSION);
            HopTrace trace = trace(request);
            return outcome(() -> boards.deleteNoteAsync(b, n, version, trace))
                    .flatMap(deleted -> ServerResponse.noContent().build());
        }

        Mono<ServerResponse> events(ServerRequest request) {
            String id = boardId(request);
            return EventStreamAnswers.ok(request, boards.events(id));
        }

        Mono<ServerResponse> stats(ServerRequest request) {
            String id = boardId(request);
            HopTrace trace = trace(request);
            return json(() -> boards.statsAsync(id, trace));
        }

        /**
         * Long poll: the board once its revision is above {@code after}; 409 if the board has not
         * reached {@code after} (the client's revision cannot be this board's).
         */
        Mono<ServerResponse> changes(ServerRequest request) {
            String id = boardId(request);
            long revision = JsonInput.version(JsonInput.onlyQueryParameter(request.queryParams(), "after"), "after", 0, 0);
            HopTrace trace = trace(request);
            return json(() -> boards.awaitChangeAsync(id, revision, trace));
        }
    }
}
