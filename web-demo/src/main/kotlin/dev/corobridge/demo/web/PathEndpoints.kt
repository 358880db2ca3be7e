package dev.corobridge.demo.web

import org.springframework.http.HttpHeaders
import org.springframework.http.HttpMethod
import org.springframework.http.InvalidMediaTypeException
import org.springframework.http.MediaType
import org.springframework.web.reactive.function.server.ServerRequest
import org.springframework.web.reactive.function.server.ServerResponse
import org.springframework.web.reactive.function.server.buildAndAwait
import org.springframework.web.server.MethodNotAllowedException
import org.springframework.web.server.NotAcceptableStatusException
import org.springframework.web.server.UnsupportedMediaTypeStatusException

/**
 * The endpoints of one path pattern of a functional route, chosen the way Spring chooses among
 * annotated handler methods (`@GetMapping(produces = ...)`, `@PostMapping(consumes = ...)`), so that a
 * `coRouter {}` face answers what it does not accept exactly as an annotated face does:
 *
 * 1. by method (HEAD is served by the GET endpoint); none: OPTIONS answers 200 with `Allow` (the
 *    declared methods, HEAD with GET, and OPTIONS) and an empty `Accept-Patch`, any other method
 *    405 ([MethodNotAllowedException], `Allow` with the declared methods, in the order given);
 * 2. by `Content-Type`, for endpoints that read a body; none: 415 ([UnsupportedMediaTypeStatusException],
 *    `Accept` with what is read);
 * 3. by `Accept`; none: 406 ([NotAcceptableStatusException]).
 *
 * The first endpoint, in the given order, that passes all three answers; list the more specific
 * one first where Spring would prefer it (`/events` before `/{boardId}`). The exceptions go to the
 * service's `WebExceptionHandler` (problem JSON), as those of annotated handlers do.
 *
 * Immutable; thread-safe.
 */
class PathEndpoints(private vararg val endpoints: Endpoint) {

    /** One method of the path: what it reads (`null`: no body), what it writes, and its handler. */
    class Endpoint(
        val method: HttpMethod,
        val consumes: MediaType?,
        val produces: MediaType,
        val handler: suspend (ServerRequest) -> ServerResponse,
    )

    private val declared: Set<HttpMethod> = endpoints.mapTo(LinkedHashSet()) { it.method }

    /** What OPTIONS answers in `Allow`: as Spring's answer for annotated handlers. */
    private val options: Set<HttpMethod> = LinkedHashSet(declared).apply {
        if (HttpMethod.GET in declared) add(HttpMethod.HEAD)
        add(HttpMethod.OPTIONS)
    }

    /** Answers [request] with the first endpoint that accepts it, or the refusal Spring would give. */
    suspend fun answer(request: ServerRequest): ServerResponse {
        val method = request.method()
        val served = if (method == HttpMethod.HEAD) HttpMethod.GET else method
        val byMethod = endpoints.filter { it.method == served }
        if (byMethod.isEmpty()) {
            if (method == HttpMethod.OPTIONS) {
                return ServerResponse.ok().headers {
                    it.allow = options
                    it.acceptPatch = emptyList() // Spring's answer names no PATCH body types: an empty header
                }.buildAndAwait()
            }
            throw MethodNotAllowedException(method, declared)
        }
        val byContentType = byMethod.filter { e -> e.consumes == null || e.consumes.includes(contentType(request, e.consumes)) }
        if (byContentType.isEmpty()) {
            throw UnsupportedMediaTypeStatusException(request.headers().contentType().orElse(null),
                byMethod.mapNotNull { it.consumes }.distinct(), method)
        }
        val accepted = accepted(request, byContentType)
        val chosen = byContentType.firstOrNull { e -> accepted.any { it.isCompatibleWith(e.produces) } }
            ?: throw NotAcceptableStatusException(byContentType.map { it.produces }.distinct())
        return chosen.handler(request)
    }

    /** The request's content type (`application/octet-stream` when it names none), or 415 if it cannot be read. */
    private fun contentType(request: ServerRequest, consumes: MediaType): MediaType = try {
        request.headers().contentType().orElse(MediaType.APPLICATION_OCTET_STREAM)
    } catch (e: InvalidMediaTypeException) {
        throw UnsupportedMediaTypeStatusException(e.message, listOf(consumes))
    }

    /** The media types the client accepts (any, when it names none), or 406 if its `Accept` cannot be read. */
    private fun accepted(request: ServerRequest, candidates: List<Endpoint>): List<MediaType> {
        if (request.headers().header(HttpHeaders.ACCEPT).isEmpty()) {
            return ANY
        }
        return try {
            request.headers().accept().ifEmpty { ANY }
        } catch (e: InvalidMediaTypeException) {
            throw NotAcceptableStatusException(candidates.map { it.produces }.distinct())
        }
    }

    private companion object {
        val ANY = listOf(MediaType.ALL)
    }
}
