package dev.corobridge.demo.web.transport;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * The service's one writer of RFC 7807 problem details ({@code application/problem+json}), for
 * Spring's error handler and for the Netty layer alike, so every refusal has the same shape:
 * {@code {"type":"/problems/<title as a slug>","title":...,"status":...,"detail":...,"instance":...}}.
 * Strings are JSON-escaped here, control characters and surrogates as {@code \}{@code uXXXX},
 * so a detail or an instance that echoes client bytes cannot break the document.
 *
 * <p>Stateless; thread-safe.
 */
public final class ProblemJson {

    /** {@code application/problem+json}. */
    public static final String MEDIA_TYPE = "application/problem+json";

    private ProblemJson() {
    }

    /** The {@code type} of a problem with this title: {@code "/problems/"} and the title as a slug. */
    public static String type(String title) {
        return "/problems/" + title.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-|-$)", "");
    }

    /**
     * The JSON document of a problem.
     *
     * @param instance the request's path, or null (or empty) where it is unknown or unreadable: the
     *     member is left out then (RFC 9457 makes every member optional)
     */
    public static String json(int status, String title, String detail, String instance) {
        return "{\"type\":" + quote(type(title)) + ",\"title\":" + quote(title) + ",\"status\":" + status + ",\"detail\":"
                + quote(detail) + (instance == null || instance.isEmpty() ? "" : ",\"instance\":" + quote(instance)) + "}";
    }

    /**
     * A whole HTTP/1.1 response carrying a problem, for an answer the Netty layer writes itself
     * (no instance: the request's path may be what could not be read). No {@code Connection} header:
     * the caller says whether the connection stays open.
     */
    static FullHttpResponse response(HttpResponseStatus status, String detail) {
        HttpResponseStatus current = ReasonPhrases.current(status);
        byte[] json = json(current.code(), current.reasonPhrase(), detail, null).getBytes(StandardCharsets.UTF_8);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, current, Unpooled.wrappedBuffer(json));
        response.headers().set(HttpHeaderNames.CONTENT_TYPE, MEDIA_TYPE).setInt(HttpHeaderNames.CONTENT_LENGTH, json.length);
        return response;
    }

    /** {@code s} as a JSON string ({@code null} as the literal). */
    static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20 || Character.isSurrogate(c)) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
