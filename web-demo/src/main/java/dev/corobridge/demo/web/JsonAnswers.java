package dev.corobridge.demo.web;

import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.EntityResponse;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/**
 * The JSON answers of both faces (200 with a value, 201 with its location), built as an
 * {@link EntityResponse} directly. {@code ServerResponse.ok().contentType(...).bodyValue(value)}
 * answers the same, but first collects its headers in a builder of its own and then copies them into
 * the entity response (a case-insensitive name set built for the copy): about 1.5 % of a board
 * snapshot's CPU under load, for one header. Stateless; thread-safe.
 */
final class JsonAnswers {

    private JsonAnswers() {
    }

    /** 200, {@code value} as JSON. */
    static Mono<ServerResponse> ok(Object value) {
        return widen(EntityResponse.fromObject(value).contentType(MediaType.APPLICATION_JSON).build());
    }

    /** 201 with {@code Location: location}, {@code value} as JSON. */
    static Mono<ServerResponse> created(String location, Object value) {
        return widen(EntityResponse.fromObject(value).status(HttpStatus.CREATED).location(URI.create(location))
                .contentType(MediaType.APPLICATION_JSON).build());
    }

    /** A {@code Mono} of an entity response as one of its supertype (it only ever emits). */
    @SuppressWarnings("unchecked")
    private static Mono<ServerResponse> widen(Mono<? extends ServerResponse> response) {
        return (Mono<ServerResponse>) response;
    }
}
