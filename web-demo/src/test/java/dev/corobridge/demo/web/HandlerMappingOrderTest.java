package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.webflux.actuate.endpoint.web.AbstractWebFluxEndpointHandlerMapping;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.function.server.support.RouterFunctionMapping;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;

/**
 * The service's routes are asked before the actuator's, and each request is still answered by the
 * mapping that answered it before: the board (both faces), ping, the actuator's endpoints, their
 * refusals (404, 405, 406) and the page.
 */
class HandlerMappingOrderTest extends LiveServiceTestBase {

    @Autowired
    private DispatcherHandler dispatcher;

    @Autowired
    @Qualifier("routerFunctionMapping")
    private RouterFunctionMapping routes;

    @Autowired
    @Qualifier("requestMappingHandlerMapping")
    private RequestMappingHandlerMapping controllers;

    @Autowired
    private List<HandlerMapping> mappings;

    @Test
    void theServiceRoutesComeBeforeTheActuatorEndpoints() {
        List<HandlerMapping> asked = dispatcher.getHandlerMappings();
        assertThat(asked).isNotNull();
        int functional = asked.indexOf(routes);
        int annotated = asked.indexOf(controllers);
        int actuator = indexOf(asked, AbstractWebFluxEndpointHandlerMapping.class);
        assertThat(functional).as("functional routes in %s", asked).isZero();
        assertThat(annotated).as("annotated controllers in %s", asked).isEqualTo(1);
        assertThat(actuator).as("actuator endpoints in %s", asked).isGreaterThan(annotated);
        assertThat(mappings).as("the dispatcher asks every mapping").hasSameSizeAs(asked);
    }

    @Test
    void eachRequestIsAnsweredByItsOwnMapping() throws IOException {
        // the board, both faces: a route of the functional mapping, with its hop trace
        for (String face : FACES) {
            RawHttp.Response list = exchange(request("GET", face + "/boards", List.of(), null));
            assertThat(list.status()).as(face).isEqualTo(200);
            assertThat(list.header("Hop-Trace")).as(face).startsWith("http@").contains(":request > corobridge-pump@");
            assertThat(exchange(request("PATCH", face + "/boards", List.of(), null)).status()).as(face).isEqualTo(405);
        }
        // ping: the annotated controller
        RawHttp.Response ping = exchange(request("GET", "/api/ping", List.of(), null));
        assertThat(ping.status()).isEqualTo(200);
        assertThat(ping.body()).isEqualTo("{\"ok\":true}");
        assertThat(exchange(request("POST", "/api/ping", List.of(), null)).status()).isEqualTo(405);
        assertThat(exchange(request("GET", "/api/ping", List.of("Accept: text/plain"), null)).status()).isEqualTo(406);
        // the actuator's endpoints and refusals
        RawHttp.Response health = exchange(request("GET", "/actuator/health", List.of(), null));
        assertThat(health.status()).isEqualTo(200);
        assertThat(health.header("Content-Type")).contains("actuator");
        assertThat(exchange(request("GET", "/actuator/health/liveness", List.of(), null)).status()).isEqualTo(200);
        assertThat(exchange(request("GET", "/actuator/prometheus", List.of(), null)).status()).isEqualTo(200);
        assertThat(exchange(request("POST", "/actuator/health", List.of(), null)).status()).isEqualTo(405);
        assertThat(exchange(request("GET", "/actuator/nothing-here", List.of(), null)).status()).isEqualTo(404);
        // no mapping's: 404; the page: the static resources
        assertThat(exchange(request("GET", "/api/nothing-here", List.of(), null)).status()).isEqualTo(404);
        RawHttp.Response page = exchange(request("GET", "/", List.of("Accept: text/html"), null));
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("id=\"notes\"");
    }

    @Test
    void theHeadOfThePageIsItsGetWithoutTheBody() throws Exception {
        try (RawHttp c = new RawHttp(port)) {
            c.send("HEAD / HTTP/1.1\r\nHost: localhost\r\nAccept: text/html\r\n\r\n");
            assertThat(c.readStatusLine()).isEqualTo("HTTP/1.1 200 OK");
            java.util.Map<String, String> headers = new java.util.HashMap<>();
            for (String h = c.readLine(); !h.isEmpty(); h = c.readLine()) {
                headers.put(h.substring(0, h.indexOf(':')).toLowerCase(java.util.Locale.ROOT), h.substring(h.indexOf(':') + 1).trim());
            }
            assertThat(headers.get("content-type")).startsWith("text/html");
            RawHttp.Response get = c.exchange(request("GET", "/", List.of("Accept: text/html"), null));
            assertThat(get.status()).as("no body followed the HEAD answer: the next answer reads whole").isEqualTo(200);
            assertThat(headers.get("content-length")).isEqualTo(String.valueOf(get.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length));
        }
    }

    /** The first mapping of {@code type}; -1 if none. */
    private static int indexOf(List<HandlerMapping> asked, Class<?> type) {
        for (int i = 0; i < asked.size(); i++) {
            if (type.isInstance(asked.get(i))) {
                return i;
            }
        }
        return -1;
    }
}
