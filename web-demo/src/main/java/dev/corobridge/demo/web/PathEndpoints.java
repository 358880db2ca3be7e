package dev.corobridge.demo.web;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Objects;
import java.util.Set;

import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.MethodNotAllowedException;
import org.springframework.web.server.NotAcceptableStatusException;
import org.springframework.web.server.UnsupportedMediaTypeStatusException;
import reactor.core.publisher.Mono;

/**
 * The endpoints of one path pattern of a functional route, chosen the way Spring chooses among
 * annotated handler methods ({@code @GetMapping(produces = ...)}, {@code @PostMapping(consumes = ...)}),
 * so that a functional face answers what it does not accept exactly as an annotated face does. Both
 * faces of the board use it: the Java one ({@code JavaBoardRoutes}, {@code H} a {@code HandlerFunction})
 * and the Kotlin one ({@code KotlinBoardRoutes}, {@code H} a {@code suspend} function); it only
 * chooses, the face calls what it chose.
 *
 * <ol>
 *   <li>by method (HEAD is served by the GET endpoint); none: OPTIONS is answered by the path
 *       itself ({@link #choose} returns {@code null}, {@link #options()} is the answer: 200 with
 *       {@code Allow}, the declared methods, HEAD with GET, and OPTIONS), any other method is 405 ({@link MethodNotAllowedException},
 *       with the same {@code Allow});</li>
 *   <li>by {@code Content-Type}, for endpoints that read a body; none: 415
 *       ({@link UnsupportedMediaTypeStatusException}, {@code Accept} with what is read);</li>
 *   <li>by {@code Accept}; none: 406 ({@link NotAcceptableStatusException}).</li>
 * </ol>
 *
 * The first endpoint, in the given order, that passes all three answers; list the more specific
 * one first where Spring would prefer it ({@code /events} before {@code /{boardId}}). The
 * exceptions go to the service's {@code WebExceptionHandler} (problem JSON), as those of annotated
 * handlers do.
 *
 * <p>Implementation: the request's method is matched by a scan of the (few) endpoints; which of
 * them passed each step is kept as bits of an {@code int}, so choosing allocates nothing beyond
 * what Spring's header parsing does ({@code Content-Type} only for endpoints that read a body,
 * {@code Accept} only when the request has one). The refusals build their lists when they happen.
 *
 * <p>Immutable; thread-safe.
 *
 * @param <H> what answers a request (the face's handler type)
 */
public final class PathEndpoints<H> {

    /** Choosing keeps a bit per endpoint in an {@code int}. */
    private static final int MAX_ENDPOINTS = Integer.SIZE;
    private static final List<MediaType> ANY = List.of(MediaType.ALL);

    /**
     * One method of the path: what it reads ({@code null}: no body), what it writes, and its handler.
     *
     * @param <H> the handler type
     */
    public record Endpoint<H>(HttpMethod method, @Nullable MediaType consumes, MediaType produces, H handler) {
        public Endpoint {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(produces, "produces");
            Objects.requireNonNull(handler, "handler");
        }
    }

    private final List<Endpoint<H>> endpoints;
    private final Set<HttpMethod> declared;
    /** What OPTIONS answers in {@code Allow}: as Spring's answer for annotated handlers. */
    private final Set<HttpMethod> options;

    /**
     * @param endpoints the path's endpoints, in the order of preference (1 to 32)
     * @throws IllegalArgumentException if there are none or more than 32
     */
    public PathEndpoints(List<Endpoint<H>> endpoints) {
        if (endpoints.isEmpty() || endpoints.size() > MAX_ENDPOINTS) {
            throw new IllegalArgumentException("a path has 1 to " + MAX_ENDPOINTS + " endpoints, was " + endpoints.size());
        }
        this.endpoints = List.copyOf(endpoints);
        Set<HttpMethod> methods = new LinkedHashSet<>();
        for (Endpoint<H> e : this.endpoints) {
            methods.add(e.method());
        }
        this.declared = Collections.unmodifiableSet(methods);
        this.options = allowed(methods);
    }

    /**
     * What a path with endpoints for {@code declared} allows, as Spring answers for annotated
     * handlers: the declared methods, HEAD with GET, and OPTIONS.
     */
    static Set<HttpMethod> allowed(Set<HttpMethod> declared) {
        Set<HttpMethod> allow = new LinkedHashSet<>(declared);
        if (declared.contains(HttpMethod.GET)) {
            allow.add(HttpMethod.HEAD);
        }
        allow.add(HttpMethod.OPTIONS);
        return Collections.unmodifiableSet(allow);
    }

    /** The endpoints in the order given. */
    @SafeVarargs
    public static <H> PathEndpoints<H> of(Endpoint<H>... endpoints) {
        return new PathEndpoints<>(List.of(endpoints));
    }

    /**
     * The handler of the first endpoint that accepts {@code request}, or {@code null} when the
     * request is an OPTIONS that no endpoint declares, which the path answers itself with
     * {@link #options()}.
     *
     * @throws MethodNotAllowedException     no endpoint has the request's method (405)
     * @throws UnsupportedMediaTypeStatusException none of those reads the request's
     *                                       {@code Content-Type}, or it cannot be parsed (415)
     * @throws NotAcceptableStatusException  none of those writes what the request's {@code Accept}
     *                                       takes, or it cannot be parsed (406)
     */
    public @Nullable H choose(ServerRequest request) {
        HttpMethod method = request.method();
        HttpMethod served = HttpMethod.HEAD.equals(method) ? HttpMethod.GET : method;
        int byMethod = 0;
        int byContentType = 0;
        MediaType contentType = null;
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint<H> e = endpoints.get(i);
            if (!e.method().equals(served)) {
                continue;
            }
            byMethod |= 1 << i;
            MediaType consumes = e.consumes();
            if (consumes != null) {
                if (contentType == null) {
                    contentType = contentType(request, consumes);
                }
                if (!consumes.includes(contentType)) {
                    continue;
                }
            }
            byContentType |= 1 << i;
        }
        if (byMethod == 0) {
            if (HttpMethod.OPTIONS.equals(method)) {
                return null;
            }
            throw new MethodNotAllowedException(method, options); // every method the path supports (RFC 9110, 15.5.6)
        }
        if (byContentType == 0) {
            List<MediaType> readable = new ArrayList<>();
            for (int i = 0; i < endpoints.size(); i++) {
                MediaType consumes = endpoints.get(i).consumes();
                if ((byMethod & 1 << i) != 0 && consumes != null && !readable.contains(consumes)) {
                    readable.add(consumes);
                }
            }
            throw new UnsupportedMediaTypeStatusException(request.headers().contentType().orElse(null), readable, method);
        }
        List<MediaType> accepted = accepted(request, byContentType);
        for (int i = 0; i < endpoints.size(); i++) {
            Endpoint<H> e = endpoints.get(i);
            if ((byContentType & 1 << i) != 0 && takes(accepted, e.produces())) {
                return e.handler();
            }
        }
        throw notAcceptable(byContentType);
    }

    /** The answer to an OPTIONS request that no endpoint declares (see {@link #choose}). */
    public Mono<ServerResponse> options() {
        // No Accept-Patch: Spring's answer for annotated handlers sends it empty, but the header
        // lists at least one media type (RFC 5789), and no endpoint takes PATCH.
        return ServerResponse.ok().headers(h -> h.setAllow(options)).build();
    }

    /** A {@code charset} parameter and its value (quoted or not). */
    private static final Pattern CHARSET = Pattern.compile("(?i);\\s*charset\\s*=\\s*\"?([^;\"]*)\"?");

    private static boolean takes(List<MediaType> accepted, MediaType produced) {
        for (int i = 0; i < accepted.size(); i++) {
            if (accepted.get(i).isCompatibleWith(produced)) {
                return true;
            }
        }
        return false;
    }

    /** The request's content type ({@code application/octet-stream} when it names none), or 415 if it cannot be read. */
    private static MediaType contentType(ServerRequest request, MediaType consumes) {
        try {
            return request.headers().contentType().orElse(MediaType.APPLICATION_OCTET_STREAM);
        } catch (InvalidMediaTypeException e) {
            // Spring's message names its own parameters ("'mimeType' must not be empty").
            String given = JsonInput.printable(e.getMediaType(), 200);
            String charset = unknownCharset(e.getMediaType());
            throw new UnsupportedMediaTypeStatusException(charset != null
                    ? "Content type '" + given + "' names charset '" + JsonInput.printable(charset, 40)
                            + "', which this service does not read; send the body as UTF-8 (charset=utf-8, or no charset)"
                    : "Content type '" + given + "' is not a media type (type/subtype, then parameters as name=value)",
                    List.of(consumes));
        }
    }

    /**
     * The charset of {@code type} when that is all that makes it unreadable (a well-formed media type
     * whose charset the JVM does not know), else null.
     */
    private static String unknownCharset(String type) {
        Matcher m = type == null ? null : CHARSET.matcher(type);
        if (m == null || !m.find() || m.group(1).isBlank()) {
            return null;
        }
        try {
            MediaType.parseMediaType(type.substring(0, m.start()) + type.substring(m.end()));
            return m.group(1).strip();
        } catch (InvalidMediaTypeException notJustTheCharset) {
            return null;
        }
    }

    /** The media types the client accepts (any, when it names none), or 406 if its {@code Accept} cannot be read. */
    private List<MediaType> accepted(ServerRequest request, int candidates) {
        if (request.headers().firstHeader(HttpHeaders.ACCEPT) == null) {
            return ANY;
        }
        List<MediaType> accepted;
        try {
            accepted = request.headers().accept();
        } catch (InvalidMediaTypeException e) {
            throw notAcceptable(candidates);
        }
        return accepted.isEmpty() ? ANY : accepted;
    }

    /** 406, naming what the candidate endpoints write. */
    private NotAcceptableStatusException notAcceptable(int candidates) {
        List<MediaType> writable = new ArrayList<>();
        for (int i = 0; i < endpoints.size(); i++) {
            MediaType produces = endpoints.get(i).produces();
            if ((candidates & 1 << i) != 0 && !writable.contains(produces)) {
                writable.add(produces);
            }
        }
        return new NotAcceptableStatusException(writable);
    }
}
