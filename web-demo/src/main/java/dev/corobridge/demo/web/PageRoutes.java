package dev.corobridge.demo.web;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.Resource;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * {@code HEAD /}: the page's head, as {@code GET /} answers it (200, {@code text/html}, its length),
 * without the body (RFC 9110, 9.3.2). Spring Boot serves the page at {@code /} as its welcome page,
 * whose route takes {@code GET} only, so a {@code HEAD} of it was 404 while the page's other files
 * ({@code /index.html}, ...) answer {@code HEAD} like {@code GET}. WebFlux leaves the body of every
 * {@code HEAD} answer out itself.
 *
 * <p>Thread-safety: the route and its handler are immutable.
 */
@Configuration(proxyBeanMethods = false)
public class PageRoutes {

    @Bean
    RouterFunction<ServerResponse> pageHeadRouter(@Value("classpath:/static/index.html") Resource page) {
        return RouterFunctions.route(RequestPredicates.HEAD("/"),
                request -> ServerResponse.ok().contentType(MediaType.TEXT_HTML).body(BodyInserters.fromResource(page)));
    }
}
