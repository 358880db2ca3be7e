package dev.corobridge.demo.changelog.kafka;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The headers of a command record: who appended it and under which request, so that the replica
 * that appended it can answer its writer, and every replica's apply logs under the request's trace
 * id. Stateless.
 */
final class KafkaHeaders {

    /** The replica that appended the record ({@code demo.replica-id}), UTF-8. */
    static final String REPLICA = "corobridge-replica";
    /** The appending process's run (random per start), 8 bytes big-endian: a restarted replica's append ids start over. */
    static final String RUN = "corobridge-run";
    /** The append id within that run, 8 bytes big-endian. */
    static final String APPEND_ID = "corobridge-append-id";
    /** The trace id of the request that made the change, UTF-8; absent when it had none. */
    static final String TRACE_ID = "corobridge-trace-id";

    private KafkaHeaders() {
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] long8(long v) {
        return ByteBuffer.allocate(8).putLong(v).array();
    }

    /** The header's text, or {@code null} when it is absent. */
    static String text(Headers headers, String key) {
        Header h = headers.lastHeader(key);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** The header's long, or {@code fallback} when it is absent or not 8 bytes. */
    static long number(Headers headers, String key, long fallback) {
        Header h = headers.lastHeader(key);
        return h == null || h.value() == null || h.value().length != 8 ? fallback : ByteBuffer.wrap(h.value()).getLong();
    }
}
