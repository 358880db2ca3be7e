package dev.corobridge.demo.web;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.core.Ordered;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.MethodNotAllowedException;
import org.springframework.web.server.NotAcceptableStatusException;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.server.WebExceptionHandler;
import org.springframework.web.reactive.resource.NoResourceFoundException;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;

import dev.corobridge.bridge.ContextShutdownException;
import dev.corobridge.bridge.TaskTimeoutException;
import dev.corobridge.demo.board.BoardException;
import dev.corobridge.demo.changelog.ChangeLogUnavailableException;
import dev.corobridge.demo.changelog.RateLimitedWarning;
import dev.corobridge.demo.web.transport.ClientAborts;
import dev.corobridge.demo.web.transport.ClientFaultSummary;
import dev.corobridge.demo.web.transport.ProblemJson;
import dev.corobridge.demo.web.transport.ServiceState;
import dev.corobridge.reactor.ReactorContexts;

/**
 * Turns every error of the service, from a handler, a filter or Spring itself (unknown route,
 * wrong method, wrong content type, undecodable body), into RFC 7807 problem JSON
 * ({@code application/problem+json}: {@code type}, {@code title}, {@code status}, {@code detail},
 * {@code instance}). Client mistakes get their 4xx; only a fault of the service is a 5xx, and it
 * is logged with its stack while the client sees no internals. Runs before Spring Boot's own
 * handler.
 *
 * <p>Once the service shuts down ({@link ServiceState}), a 503 is the expected refusal of a request
 * that came too late, not a fault: it carries {@code Retry-After} and {@code Connection: close}
 * (the client should come back later, to a new connection) and is logged at debug level only.
 *
 * <p>A request the client ended (it closed the connection mid-body or before the answer, or sent
 * bytes the HTTP decoder could not read, which the layer below answers itself) has nobody to answer
 * and is not the service's fault either: {@link ClientAborts} logs one line at debug level, no stack,
 * no answer, and counts it for the {@link ClientFaultSummary} (the one rate-limited WARN line).
 * Every other 4xx is one line at debug level too. The document is {@link ProblemJson}'s, as are
 * the problems the Netty layer writes itself.
 * Details speak the client's terms: what is wrong with the request, never a Java signature or a
 * server path.
 *
 * <p>Thread-safe: its own state is immutable; the shared {@link ServiceState} is read per error.
 */
public final class ProblemJsonHandler implements WebExceptionHandler, Ordered {

    private static final Log LOG = LogFactory.getLog(ProblemJsonHandler.class);
    private static final MediaType PROBLEM_JSON = MediaType.parseMediaType(ProblemJson.MEDIA_TYPE);

    private final ServiceState state;
    private final String retryAfterSeconds;
    private final ClientAborts clientAborts;
    /**
     * 503 refusals by design (a failed journal, an apply that did not come in time): what caused
     * them is reported where it happened (the journal logs its failure, with the stack, once), so
     * the requests refused get one WARN line a minute at most, not an ERROR with a stack each.
     */
    private final RateLimitedWarning refusals = new RateLimitedWarning(LOG, 1, java.util.concurrent.TimeUnit.MINUTES);

    /**
     * @param state      whether the service is shutting down
     * @param retryAfter the {@code Retry-After} of a 503 during shutdown (whole seconds, at least 1)
     * @param faults     counts the requests that clients end (unless their connection's fault was
     *                   counted already, e.g. by a timeout that closed it)
     */
    public ProblemJsonHandler(ServiceState state, Duration retryAfter, ClientFaultSummary faults) {
        this.state = Objects.requireNonNull(state, "state");
        this.clientAborts = new ClientAborts(faults);
        if (retryAfter.toSeconds() < 1) {
            throw new IllegalArgumentException("Retry-After must be at least 1 second, was " + retryAfter);
        }
        this.retryAfterSeconds = Long.toString(retryAfter.toSeconds());
    }

    @Override
    public int getOrder() {
        return -2; // ahead of Boot's DefaultErrorWebExceptionHandler (-1)
    }

    @Override
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        if (clientAborts.endedByClient(exchange, ex)) {
            return Mono.empty(); // not the service's fault, and nobody to answer
        }
        ServerHttpResponse response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.error(ex); // a fault after the answer started: Spring logs it and aborts the response
        }
        Problem classified = classify(ex);
        Problem p = classified.status == 406 ? unreadableAccept(exchange, ex, classified) : classified;
        boolean refusedAtShutdown = p.status == 503 && state.isShuttingDown();
        boolean logUnavailable = p.status == 503 && causedBy(ex, ChangeLogUnavailableException.class);
        Runnable errorLine = null; // written with the request's trace (see the end)
        if (refusedAtShutdown) {
            if (LOG.isDebugEnabled()) {
                LOG.debug("Request " + exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath()
                        + " refused during shutdown: " + p.detail);
            }
        } else if (logUnavailable) {
            // The change log reports its outage itself (health DOWN, a rate-limited WARN): no line per request.
            if (LOG.isDebugEnabled()) {
                LOG.debug("Request " + exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath()
                        + " refused while the change log is unavailable: " + p.detail);
            }
        } else if (p.status == 503 && causedBy(ex, BoardException.class)) {
            refusals.warn("Requests refused with 503: " + p.detail, null);
            if (LOG.isDebugEnabled()) {
                LOG.debug("Request " + exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath()
                        + " refused: " + p.detail);
            }
        } else if (p.status >= 500) {
            errorLine = () -> LOG.error("Request " + exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath()
                    + " failed: " + p.detail, ex);
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("Request " + exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath()
                    + " answered " + p.status + ": " + p.detail);
        }
        response.setStatusCode(HttpStatusCode.valueOf(p.status));
        HttpHeaders headers = response.getHeaders();
        headers.setContentType(PROBLEM_JSON);
        if (p.extraHeaders != null) {
            p.extraHeaders.forEach((k, v) -> headers.put(k, v));
        }
        if (refusedAtShutdown) {
            headers.set(HttpHeaders.RETRY_AFTER, retryAfterSeconds);
            headers.set(HttpHeaders.CONNECTION, "close");
        }
        if (logUnavailable) {
            headers.set(HttpHeaders.RETRY_AFTER, "1");
        }
        byte[] bytes = ProblemJson.json(p.status, p.title, p.detail, instance(exchange))
                .getBytes(StandardCharsets.UTF_8);
        headers.setContentLength(bytes.length);
        Mono<Void> write = response.writeWith(Mono.just(response.bufferFactory().wrap(bytes)));
        if (errorLine == null) {
            return write;
        }
        // The ERROR line carries the request's trace id: its Reactor context as the thread's for the line.
        Runnable line = errorLine;
        return Mono.deferContextual(context -> ReactorContexts.with(context, () -> {
            line.run();
            return write;
        }));
    }

    /**
     * The {@code Allow} of a 405: the methods the path's endpoints take, with {@code HEAD} where
     * {@code GET} is taken and {@code OPTIONS}, which every path answers (as its OPTIONS answer
     * lists them); Spring's own 405 of an annotated endpoint names only the declared methods.
     */
    private static HttpHeaders allowing(java.util.Set<HttpMethod> declared) {
        HttpHeaders headers = new HttpHeaders();
        headers.setAllow(PathEndpoints.allowed(declared));
        return headers;
    }

    /**
     * A 406 for an {@code Accept} that cannot be read at all ({@code q=abc}, {@code ///}): the
     * detail says so, rather than that the header takes none of the endpoint's types.
     */
    private static Problem unreadableAccept(ServerWebExchange exchange, Throwable ex, Problem p) {
        List<String> accept = exchange.getRequest().getHeaders().get(HttpHeaders.ACCEPT);
        if (accept == null) {
            return p;
        }
        try {
            MediaType.parseMediaTypes(accept);
            return p;
        } catch (InvalidMediaTypeException unreadable) {
            String why = String.valueOf(unreadable.getMessage());
            String answers = ex instanceof NotAcceptableStatusException na && !na.getSupportedMediaTypes().isEmpty()
                    ? "; this endpoint answers with " + MediaType.toString(na.getSupportedMediaTypes()) : "";
            return new Problem(p.status, p.type, p.title, "the request's Accept header cannot be read ("
                    + JsonInput.printable(why, 200) + ")" + answers, p.extraHeaders);
        }
    }

    private static boolean causedBy(Throwable ex, Class<? extends Throwable> type) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    /** The problem an error stands for. */
    record Problem(int status, String type, String title, String detail, HttpHeaders extraHeaders) {
    }

    static Problem classify(Throwable ex) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (t instanceof BoardException b) {
                return problem(b.kind().status(), b.kind().title(), b.getMessage(), null);
            }
            if (t instanceof PayloadTooLargeException || t instanceof DataBufferLimitException) {
                return problem(413, "Content Too Large", t instanceof PayloadTooLargeException p ? p.getReason()
                        : "the request body is too large", null);
            }
            if (t instanceof ContextShutdownException) {
                return problem(503, "Service Unavailable", "the service is shutting down", null);
            }
            if (t instanceof TaskTimeoutException) {
                return problem(503, "Service Unavailable", "the request took too long", null);
            }
            if (t instanceof ServerWebInputException in) {
                return problem(400, "Bad Request", inputDetail(in), null);
            }
            if (t instanceof NoResourceFoundException) {
                return problem(404, "Not Found", "no such endpoint or file", null);
            }
            if (t instanceof ResponseStatusException rs) {
                int status = rs.getStatusCode().value();
                HttpStatus known = HttpStatus.resolve(status);
                String title = known != null ? known.getReasonPhrase() : "Error";
                String detail = rs instanceof NotAcceptableStatusException na && !na.getSupportedMediaTypes().isEmpty()
                        ? "this endpoint answers with " + MediaType.toString(na.getSupportedMediaTypes())
                                + " (application/problem+json for errors); the request's Accept takes none of them"
                        : rs.getReason() != null ? rs.getReason() : title;
                return problem(status, title, detail,
                        rs instanceof MethodNotAllowedException na ? allowing(na.getSupportedMethods()) : rs.getHeaders());
            }
            if (t instanceof CancellationException) {
                return problem(503, "Service Unavailable", "the request was cancelled", null);
            }
        }
        return problem(500, "Internal Server Error", "the service failed to handle the request; it is logged", null);
    }

    /** A 400's detail in the client's terms: what is wrong with the body, never a Java signature. */
    private static String inputDetail(ServerWebInputException in) {
        for (Throwable t = in; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (m != null && m.contains("No request body")) {
                return "the request body is missing; a JSON object is expected";
            }
        }
        for (Throwable t = in.getCause(); t != null; t = t.getCause()) {
            if (t instanceof JacksonException syntax) {
                return JsonSyntaxDetail.of(syntax);
            }
        }
        if (in.getCause() instanceof DecodingException) {
            return "malformed JSON: the body is not a valid JSON value";
        }
        String reason = in.getReason();
        if (reason == null) {
            return "invalid request";
        }
        int signature = reason.indexOf(" for: "); // Spring appends the handler method's signature
        return JsonInput.printable(signature >= 0 ? reason.substring(0, signature) : reason, 200);
    }

    private static Problem problem(int status, String title, String detail, HttpHeaders headers) {
        return new Problem(status, ProblemJson.type(title), title, detail, headers == null || headers.isEmpty() ? null : headers);
    }

    /**
     * The request's path as the problem's {@code instance}, whole (the decoder bounds it at 4 KB):
     * cut short it would be no path, and the faces, whose prefixes differ in length, would differ.
     * It is ASCII (the transport refuses a target with a raw byte above 0x7F); control characters
     * escaped, as everywhere client text is echoed.
     */
    private static String instance(ServerWebExchange exchange) {
        return JsonInput.printable(exchange.getRequest().getPath().value(), Integer.MAX_VALUE);
    }
}
