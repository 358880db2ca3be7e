package dev.corobridge.demo.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.mock.web.reactive.function.server.MockServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.MethodNotAllowedException;
import org.springframework.web.server.NotAcceptableStatusException;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;

import dev.corobridge.demo.web.PathEndpoints.Endpoint;

/**
 * How {@link PathEndpoints} chooses, rule by rule: method (HEAD by GET, OPTIONS by the path),
 * then {@code Content-Type}, then {@code Accept}, the first endpoint in order winning; and the
 * refusals with what they name. FacesAnswerAlikeTest checks the answers on the wire.
 */
class PathEndpointsTest {

    private static final MediaType JSON = MediaType.APPLICATION_JSON;
    private static final MediaType SSE = MediaType.TEXT_EVENT_STREAM;

    /** The path of a board list: GET (a stream first, then JSON), POST reading JSON. */
    private final PathEndpoints<String> path = PathEndpoints.of(
            new Endpoint<>(HttpMethod.GET, null, SSE, "stream"),
            new Endpoint<>(HttpMethod.GET, null, JSON, "list"),
            new Endpoint<>(HttpMethod.POST, JSON, JSON, "create"));

    private static MockServerRequest.Builder request(HttpMethod method, String... headers) {
        MockServerRequest.Builder b = MockServerRequest.builder().method(method);
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return b;
    }

    @Test
    void theFirstEndpointThatTakesTheRequestAnswers() {
        assertThat(path.choose(request(HttpMethod.GET).build())).isEqualTo("stream");
        assertThat(path.choose(request(HttpMethod.GET, HttpHeaders.ACCEPT, "*/*").build())).isEqualTo("stream");
        assertThat(path.choose(request(HttpMethod.GET, HttpHeaders.ACCEPT, "application/json").build())).isEqualTo("list");
        assertThat(path.choose(request(HttpMethod.GET, HttpHeaders.ACCEPT, "application/*").build())).isEqualTo("list");
        assertThat(path.choose(request(HttpMethod.POST, HttpHeaders.CONTENT_TYPE, "application/json;charset=UTF-8").build()))
                .isEqualTo("create");
    }

    @Test
    void headIsServedByGet() {
        assertThat(path.choose(request(HttpMethod.HEAD, HttpHeaders.ACCEPT, "application/json").build())).isEqualTo("list");
    }

    @Test
    void optionsIsThePathsOwnAnswerWithAllow() {
        assertThat(path.choose(request(HttpMethod.OPTIONS).build())).isNull();
        ServerResponse r = path.options().block();
        assertThat(r.statusCode().value()).isEqualTo(200);
        assertThat(r.headers().getAllow()).containsExactly(HttpMethod.GET, HttpMethod.POST, HttpMethod.HEAD, HttpMethod.OPTIONS);
        assertThat(r.headers().get(HttpHeaders.ACCEPT_PATCH)).as("no empty Accept-Patch (RFC 5789)").isNull();
    }

    @Test
    void optionsOfAPathWithoutGetNamesNoHead() {
        PathEndpoints<String> notes = PathEndpoints.of(new Endpoint<>(HttpMethod.POST, JSON, JSON, "add"));
        assertThat(notes.options().block().headers().getAllow()).containsExactly(HttpMethod.POST, HttpMethod.OPTIONS);
    }

    /**
     * A 405's {@code Allow} lists every method the path supports (RFC 9110, section 15.5.6), as the
     * OPTIONS answer does: HEAD and OPTIONS were left out.
     */
    @Test
    void aMethodNoEndpointDeclaresIs405WithEveryMethodThePathSupports() {
        assertThatThrownBy(() -> path.choose(request(HttpMethod.PATCH).build()))
                .isInstanceOfSatisfying(MethodNotAllowedException.class, e -> {
                    assertThat(e.getStatusCode().value()).isEqualTo(405);
                    assertThat(e.getSupportedMethods()).containsExactlyInAnyOrder(HttpMethod.GET, HttpMethod.POST,
                            HttpMethod.HEAD, HttpMethod.OPTIONS);
                });
    }

    @Test
    void aBodyOfATypeNoEndpointReadsIs415NamingWhatIsRead() {
        for (String contentType : List.of("text/plain", "application/merge-patch+json")) {
            assertThatThrownBy(() -> path.choose(request(HttpMethod.POST, HttpHeaders.CONTENT_TYPE, contentType).build()))
                    .as(contentType)
                    .isInstanceOfSatisfying(UnsupportedMediaTypeStatusException.class, e -> {
                        assertThat(e.getSupportedMediaTypes()).containsExactly(JSON);
                        assertThat(e.getContentType()).isEqualTo(MediaType.parseMediaType(contentType));
                    });
        }
        // No Content-Type: read as application/octet-stream, which no endpoint reads.
        assertThatThrownBy(() -> path.choose(request(HttpMethod.POST).build()))
                .isInstanceOf(UnsupportedMediaTypeStatusException.class);
        assertThatThrownBy(() -> path.choose(request(HttpMethod.POST, HttpHeaders.CONTENT_TYPE, "garbage").build()))
                .isInstanceOfSatisfying(UnsupportedMediaTypeStatusException.class,
                        e -> assertThat(e.getSupportedMediaTypes()).containsExactly(JSON));
    }

    @Test
    void theContentTypeIsCheckedBeforeAccept() {
        assertThatThrownBy(() -> path.choose(request(HttpMethod.POST, HttpHeaders.CONTENT_TYPE, "text/plain",
                HttpHeaders.ACCEPT, "application/xml").build()))
                .isInstanceOf(UnsupportedMediaTypeStatusException.class);
    }

    @Test
    void anAcceptNoEndpointWritesIs406NamingWhatTheCandidatesWrite() {
        assertThatThrownBy(() -> path.choose(request(HttpMethod.GET, HttpHeaders.ACCEPT, "application/xml").build()))
                .isInstanceOfSatisfying(NotAcceptableStatusException.class,
                        e -> assertThat(e.getSupportedMediaTypes()).containsExactly(SSE, JSON));
        assertThatThrownBy(() -> path.choose(request(HttpMethod.POST, HttpHeaders.CONTENT_TYPE, "application/json",
                HttpHeaders.ACCEPT, "text/html").build()))
                .isInstanceOfSatisfying(NotAcceptableStatusException.class,
                        e -> assertThat(e.getSupportedMediaTypes()).containsExactly(JSON));
        assertThatThrownBy(() -> path.choose(request(HttpMethod.GET, HttpHeaders.ACCEPT, "garbage").build()))
                .isInstanceOfSatisfying(NotAcceptableStatusException.class,
                        e -> assertThat(e.getSupportedMediaTypes()).containsExactly(SSE, JSON));
    }

    @Test
    void aPathHasOneTo32Endpoints() {
        assertThatThrownBy(() -> new PathEndpoints<String>(List.of())).isInstanceOf(IllegalArgumentException.class);
        List<Endpoint<String>> many = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            many.add(new Endpoint<>(HttpMethod.GET, null, MediaType.parseMediaType("application/x" + i), "e" + i));
        }
        PathEndpoints<String> full = new PathEndpoints<>(many);
        assertThat(full.choose(request(HttpMethod.GET, HttpHeaders.ACCEPT, "application/x31").build())).isEqualTo("e31");
        many.add(new Endpoint<>(HttpMethod.GET, null, JSON, "one too many"));
        assertThatThrownBy(() -> new PathEndpoints<>(many)).isInstanceOf(IllegalArgumentException.class);
    }
}
