package dev.corobridge.demo.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * The {@code Accept} of an API request as Spring should read it when the client refuses types with
 * {@code q=0}. RFC 9110 (section 12.5.1) makes a weight of 0 mean "not acceptable", and the most
 * specific media range that matches a type decides its weight ({@code application/json;q=0, *}{@code /*}
 * takes everything but JSON). Spring's negotiation ignores the zero, so such a header is rewritten
 * before Spring reads it: for each type the API writes, its weight by those rules, kept if above
 * 0; plus the other exact types the client accepts; or, if that leaves nothing, one no endpoint
 * writes, so that the answer is 406. Headers without a zero weight are left alone (the common case
 * costs one scan of the header). Stateless, thread-safe.
 */
final class RefusedMediaTypes {

    /** What the API's endpoints write. */
    private static final List<MediaType> WRITTEN = List.of(MediaType.APPLICATION_JSON, MediaType.TEXT_EVENT_STREAM);
    /** Accepts nothing the service writes: the negotiation answers 406. */
    private static final MediaType NOTHING_WRITTEN = new MediaType("application", "x.nothing-acceptable");

    private RefusedMediaTypes() {
    }

    /** The {@code Accept} to negotiate with, or {@code null} to keep the request's as it is. */
    static List<MediaType> accept(HttpHeaders headers) {
        List<String> values = headers.get(HttpHeaders.ACCEPT);
        if (values == null || !mayWeighZero(values)) {
            return null;
        }
        List<MediaType> accept;
        try {
            accept = MediaType.parseMediaTypes(values);
        } catch (InvalidMediaTypeException e) {
            return null; // the negotiation refuses it as it is
        }
        if (accept.stream().noneMatch(m -> m.getQualityValue() == 0)) {
            return null;
        }
        List<MediaType> kept = new ArrayList<>();
        for (MediaType written : WRITTEN) {
            MediaType decides = null;
            for (MediaType range : accept) {
                if (range.includes(written) && (decides == null || specificity(range) > specificity(decides))) {
                    decides = range;
                }
            }
            if (decides != null && decides.getQualityValue() > 0) {
                kept.add(new MediaType(written, Map.of("q", Double.toString(decides.getQualityValue()))));
            }
        }
        for (MediaType range : accept) {
            if (range.isConcrete() && range.getQualityValue() > 0 && WRITTEN.stream().noneMatch(range::equalsTypeAndSubtype)) {
                kept.add(range);
            }
        }
        return kept.isEmpty() ? List.of(NOTHING_WRITTEN) : kept;
    }

    /**
     * Whether some value may have a {@code q} parameter that starts with 0 ({@code q=0},
     * {@code Q = 0.000}): a scan without allocation before parsing, as most requests send an
     * {@code Accept} without one.
     */
    static boolean mayWeighZero(List<String> values) {
        for (String v : values) {
            for (int i = v.indexOf('='); i >= 0; i = v.indexOf('=', i + 1)) {
                int before = i - 1;
                while (before >= 0 && v.charAt(before) == ' ') {
                    before--;
                }
                int after = i + 1;
                while (after < v.length() && v.charAt(after) == ' ') {
                    after++;
                }
                if (before >= 0 && (v.charAt(before) == 'q' || v.charAt(before) == 'Q')
                        && after < v.length() && v.charAt(after) == '0') {
                    return true;
                }
            }
        }
        return false;
    }

    /** 2 for a type and subtype, 1 for {@code type/*}, 0 for {@code *}{@code /*}. */
    private static int specificity(MediaType range) {
        return range.isWildcardType() ? 0 : range.isWildcardSubtype() ? 1 : 2;
    }
}
